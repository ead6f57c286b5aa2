/**
 * Requests and responses of key management (org admins, bearer). Every bound of docs/decisions.md
 * ("API keys", "Key rotation") is here, so that a request outside one is a 400 naming the field
 * before anything runs.
 * Null counts as absent, except where it means something: `description`, the allow-lists and
 * `expires_at` are cleared by null on update.
 */
import * as z from 'zod/mini';
import { MCP_SCOPES } from './mcp-scopes.js';
import { KEY_DEFAULTS } from './api-keys.js';
import { CHANGEABLE_KEY_PROPERTIES } from './key-views.js';
import { Id, QueryId, Timestamp, withMeta } from '../platform/schemas.js';

/** Upper bounds of key settings (docs/decisions.md#api-keys). */
const KEY_BOUNDS = {
  name: 100,
  description: 500,
  allowList: 1000,
  perMinute: 100_000,
  perDay: 100_000_000,
} as const;

const Name = withMeta(
  z.string().check(
    z.minLength(1),
    z.maxLength(KEY_BOUNDS.name),
    z.refine((s) => s.trim() !== '', 'must not be blank'),
  ),
  { description: 'Human label, 1 to 100 characters.', example: 'Checkout server' },
);
const Description = withMeta(z.string().check(z.maxLength(KEY_BOUNDS.description)), { description: 'At most 500 characters.' });
const AllowList = withMeta(z.array(Id).check(z.maxLength(KEY_BOUNDS.allowList)), {
  description: 'Null: every one of the org. A list: only these (empty: none). At most 1,000 ids.',
});
const PerMinute = z.int().check(z.minimum(1), z.maximum(KEY_BOUNDS.perMinute));
const PerDay = z.int().check(z.minimum(1), z.maximum(KEY_BOUNDS.perDay));
/** Any ISO 8601 date-time with a zone, normalized to UTC with milliseconds. Must lie ahead (checked by the domain's clock). */
const ExpiresAt = withMeta(
  z.pipe(
    z.iso.datetime({ offset: true }),
    z.transform((s) => new Date(s).toISOString()),
  ),
  { description: 'Automatic expiry of the key: an ISO 8601 date-time in the future.', example: '2027-01-01T00:00:00.000Z' },
);
const McpScope = withMeta(z.enum(MCP_SCOPES), { id: 'McpScope', description: 'A scope of the MCP server (deny-by-default).' });
const McpScopes = withMeta(z.array(McpScope), { description: 'MCP scopes of the key; none by default.' });

/** Optional, null as absent, with a default (shown in the interface description). */
const withDefault = <T extends z.ZodMiniType, D extends z.output<T> | null>(schema: T, value: D) =>
  z.pipe(
    withMeta(z.nullish(schema), { default: value }),
    z.transform((v) => v ?? value),
  );
/** Optional, null as absent (undefined: leave unchanged). */
const ifGiven = <T extends z.ZodMiniType>(schema: T) =>
  z.pipe(
    z.nullish(schema),
    z.transform((v) => v ?? undefined),
  );

export const ListKeysQuery = z.object({ org_id: QueryId });

export const CreateKeyBody = withMeta(
  z.strictObject({
    org_id: Id,
    name: Name,
    description: withDefault(Description, null),
    allowed_game_ids: withDefault(AllowList, null),
    allowed_stream_ids: withDefault(AllowList, null),
    rate_limit_per_minute: withDefault(PerMinute, KEY_DEFAULTS.rate_limit_per_minute),
    rate_limit_per_day: withDefault(PerDay, KEY_DEFAULTS.rate_limit_per_day),
    expires_at: withDefault(ExpiresAt, null),
    mcp_scopes: withDefault(McpScopes, []),
  }),
  // Inline in the document, not a component: generators (openapi-typescript) treat a component's
  // defaulted fields as required, but not a request body's own.
  { description: 'The new API key: org and name required; every other field has its default.' },
);
export type CreateKeyBody = z.output<typeof CreateKeyBody>;

export const UpdateKeyBody = withMeta(
  z
    .strictObject({
      id: Id,
      org_id: Id,
      is_active: withMeta(ifGiven(z.boolean()), {
        description:
          'false revokes the key (at any tier), true reactivates it. A rotated key cannot be reactivated (409); any change but a revocation needs Business tier or higher.',
      }),
      name: ifGiven(Name),
      description: z.optional(z.nullable(Description)),
      allowed_game_ids: z.optional(z.nullable(AllowList)),
      allowed_stream_ids: z.optional(z.nullable(AllowList)),
      rate_limit_per_minute: ifGiven(PerMinute),
      rate_limit_per_day: ifGiven(PerDay),
      expires_at: withMeta(z.optional(z.nullable(ExpiresAt)), {
        description: 'A future ISO 8601 date-time; null removes the expiry. A rotated key’s expiry can only come sooner (409 otherwise).',
      }),
      mcp_scopes: ifGiven(McpScopes),
    })
    // A body that changes nothing is most likely a misspelt property: refuse it rather than answer 200.
    .check(
      z.refine((body) => CHANGEABLE_KEY_PROPERTIES.some((field) => body[field] !== undefined), {
        message: `at least one property to change is required (${CHANGEABLE_KEY_PROPERTIES.join(', ')})`,
      }),
    ),
  { id: 'UpdateApiKeyRequest' },
);
export type UpdateKeyBody = z.output<typeof UpdateKeyBody>;

export const DeleteKeyQuery = z.object({ id: QueryId, org_id: QueryId });

/** Longest grace period of a rotation: 7 days, in minutes. */
const MAX_GRACE_MINUTES = 10_080;

export const RotateKeyBody = withMeta(
  z.strictObject({
    id: Id,
    org_id: Id,
    grace_period_minutes: withMeta(z.int().check(z.minimum(0), z.maximum(MAX_GRACE_MINUTES)), {
      description:
        'Required, no default: minutes the old key keeps working (0 to 10,080); 0 revokes it at once. Never beyond its own expires_at. A revoked key cannot be rotated (409).',
      example: 60,
    }),
  }),
  { id: 'RotateApiKeyRequest' },
);
export type RotateKeyBody = z.output<typeof RotateKeyBody>;

/** A key as admins see it (list, update): never the raw key, never its hash. */
export const ApiKeyView = withMeta(
  z.object({
    id: Id,
    org_id: Id,
    name: z.string(),
    description: z.nullable(z.string()),
    key_prefix: withMeta(z.string(), { description: '`dpk_` and the next 4 characters of the key.', example: 'dpk_3f2b' }),
    allowed_game_ids: z.nullable(z.array(Id)),
    allowed_stream_ids: z.nullable(z.array(Id)),
    rate_limit_per_minute: z.int(),
    rate_limit_per_day: z.int(),
    expires_at: z.nullable(Timestamp),
    is_active: z.boolean(),
    mcp_scopes: z.array(McpScope),
    created_at: Timestamp,
    updated_at: Timestamp,
    last_used_at: withMeta(z.nullable(Timestamp), { description: 'Last authenticated use, precise to the minute.' }),
    rotated_to: withMeta(z.nullable(Id), { description: 'Id of the key this one was rotated to; null when never rotated.' }),
    rotated_from: withMeta(z.nullable(Id), { description: 'Id of the key this one replaced by a rotation; null when created directly.' }),
  }),
  { id: 'ApiKey' },
);

export const CreatedApiKey = withMeta(
  z.extend(ApiKeyView, {
    key: withMeta(z.string().check(z.regex(/^dpk_[0-9a-f]{40}$/)), {
      description: 'The raw key. Returned only here; it can never be retrieved again.',
    }),
  }),
  { id: 'CreatedApiKey' },
);

export const DeletedApiKey = withMeta(z.object({ id: Id, deleted: z.literal(true) }), { id: 'DeletedApiKey' });

/** The rotate-key answer: the new key (raw key only here) and the old key as the rotation left it. */
export const RotatedApiKey = withMeta(
  z.extend(CreatedApiKey, {
    previous: withMeta(ApiKeyView, { description: 'The old key: `expires_at` is the end of its grace period, `rotated_to` the new key.' }),
  }),
  { id: 'RotatedApiKey' },
);
