/**
 * Requests and responses of key management (org admins, bearer). Every bound of the team's
 * decisions is here, so that a request outside one is a 400 naming the field before anything runs.
 * Null counts as absent, except where it means something: `description`, the allow-lists and
 * `expires_at` are cleared by null on update.
 */
import * as z from 'zod';
import { MCP_SCOPES } from '../domain/mcp-scopes.js';
import { KEY_DEFAULTS } from '../domain/api-keys.js';
import { CHANGEABLE_KEY_PROPERTIES } from '../domain/key-admin.js';
import { Id, QueryId, Timestamp } from './common.js';

/** Upper bounds of key settings (decisions: API keys). */
export const KEY_BOUNDS = {
  name: 100,
  description: 500,
  allowList: 1000,
  perMinute: 100_000,
  perDay: 100_000_000,
} as const;

const Name = z
  .string()
  .min(1)
  .max(KEY_BOUNDS.name)
  .refine((s) => s.trim() !== '', 'must not be blank')
  .meta({ description: 'Human label, 1 to 100 characters.', example: 'Checkout server' });
const Description = z.string().max(KEY_BOUNDS.description).meta({ description: 'At most 500 characters.' });
const AllowList = z
  .array(Id)
  .max(KEY_BOUNDS.allowList)
  .meta({ description: 'Null: every one of the org. A list: only these (empty: none). At most 1,000 ids.' });
const PerMinute = z.int().min(1).max(KEY_BOUNDS.perMinute);
const PerDay = z.int().min(1).max(KEY_BOUNDS.perDay);
/** Any ISO 8601 date-time with a zone, normalized to UTC with milliseconds. Must lie ahead (checked by the domain's clock). */
const ExpiresAt = z.iso
  .datetime({ offset: true })
  .transform((s) => new Date(s).toISOString())
  .meta({ description: 'Automatic expiry of the key: an ISO 8601 date-time in the future.', example: '2027-01-01T00:00:00.000Z' });
const McpScope = z.enum(MCP_SCOPES).meta({ id: 'McpScope', description: 'A scope of the MCP server (deny-by-default).' });
const McpScopes = z.array(McpScope).meta({ description: 'MCP scopes of the key; none by default.' });

/** Optional, null as absent, with a default (shown in the interface description). */
const withDefault = <T extends z.ZodType, D extends z.output<T> | null>(schema: T, value: D) =>
  schema
    .nullish()
    .meta({ default: value })
    .transform((v) => v ?? value);
/** Optional, null as absent (undefined: leave unchanged). */
const ifGiven = <T extends z.ZodType>(schema: T) => schema.nullish().transform((v) => v ?? undefined);

export const ListKeysQuery = z.object({ org_id: QueryId });

export const CreateKeyBody = z
  .object({
    org_id: Id,
    name: Name,
    description: withDefault(Description, null),
    allowed_game_ids: withDefault(AllowList, null),
    allowed_stream_ids: withDefault(AllowList, null),
    rate_limit_per_minute: withDefault(PerMinute, KEY_DEFAULTS.rate_limit_per_minute),
    rate_limit_per_day: withDefault(PerDay, KEY_DEFAULTS.rate_limit_per_day),
    expires_at: withDefault(ExpiresAt, null),
    mcp_scopes: withDefault(McpScopes, []),
  })
  .meta({ id: 'CreateApiKeyRequest' });
export type CreateKeyBody = z.output<typeof CreateKeyBody>;

export const UpdateKeyBody = z
  .object({
    id: Id,
    org_id: Id,
    is_active: ifGiven(z.boolean()).meta({ description: 'false revokes the key, true reactivates it.' }),
    name: ifGiven(Name),
    description: Description.nullable().optional(),
    allowed_game_ids: AllowList.nullable().optional(),
    allowed_stream_ids: AllowList.nullable().optional(),
    rate_limit_per_minute: ifGiven(PerMinute),
    rate_limit_per_day: ifGiven(PerDay),
    expires_at: ExpiresAt.nullable().optional().meta({ description: 'A future ISO 8601 date-time; null removes the expiry.' }),
    mcp_scopes: ifGiven(McpScopes),
  })
  // A body that changes nothing is most likely a misspelt property: refuse it rather than answer 200.
  .refine((body) => CHANGEABLE_KEY_PROPERTIES.some((field) => body[field] !== undefined), {
    message: `at least one property to change is required (${CHANGEABLE_KEY_PROPERTIES.join(', ')})`,
  })
  .meta({ id: 'UpdateApiKeyRequest' });
export type UpdateKeyBody = z.output<typeof UpdateKeyBody>;

export const DeleteKeyQuery = z.object({ id: QueryId, org_id: QueryId });

/** Longest grace period of a rotation: 7 days, in minutes. */
export const MAX_GRACE_MINUTES = 10_080;

export const RotateKeyBody = z
  .object({
    id: Id,
    org_id: Id,
    grace_period_minutes: z.int().min(0).max(MAX_GRACE_MINUTES).meta({
      description: 'Minutes the old key keeps working (0 to 10,080); 0 revokes it at once. Never beyond its own expires_at.',
      example: 60,
    }),
  })
  .meta({ id: 'RotateApiKeyRequest' });
export type RotateKeyBody = z.output<typeof RotateKeyBody>;

/** A key as admins see it (list, update): never the raw key, never its hash. */
export const ApiKeyView = z
  .object({
    id: Id,
    org_id: Id,
    name: z.string(),
    description: z.string().nullable(),
    key_prefix: z.string().meta({ description: '`dpk_` and the next 4 characters of the key.', example: 'dpk_3f2b' }),
    allowed_game_ids: z.array(Id).nullable(),
    allowed_stream_ids: z.array(Id).nullable(),
    rate_limit_per_minute: z.int(),
    rate_limit_per_day: z.int(),
    expires_at: Timestamp.nullable(),
    is_active: z.boolean(),
    mcp_scopes: z.array(McpScope),
    created_at: Timestamp,
    updated_at: Timestamp,
    last_used_at: Timestamp.nullable().meta({ description: 'Last authenticated use, precise to the minute.' }),
    rotated_to: Id.nullable().meta({ description: 'Id of the key this one was rotated to; null when never rotated.' }),
    rotated_from: Id.nullable().meta({ description: 'Id of the key this one replaced by a rotation; null when created directly.' }),
  })
  .meta({ id: 'ApiKey' });

export const CreatedApiKey = ApiKeyView.extend({
  key: z
    .string()
    .regex(/^dpk_[0-9a-f]{40}$/)
    .meta({ description: 'The raw key. Returned only here; it can never be retrieved again.' }),
}).meta({ id: 'CreatedApiKey' });

export const DeletedApiKey = z.object({ id: Id, deleted: z.literal(true) }).meta({ id: 'DeletedApiKey' });

/** The rotate-key answer: the new key (raw key only here) and the old key as the rotation left it. */
export const RotatedApiKey = CreatedApiKey.extend({
  previous: ApiKeyView.meta({ description: 'The old key: `expires_at` is the end of its grace period, `rotated_to` the new key.' }),
}).meta({ id: 'RotatedApiKey' });
