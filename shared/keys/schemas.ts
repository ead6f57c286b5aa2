/**
 * Requests and responses of key management (org admins, bearer). Every bound of docs/decisions.md
 * ("API keys", "Key rotation") is here, so that a request outside one is a 400 naming the field
 * before anything runs.
 * Null counts as absent, except where it means something: a setting a key may hold as null
 * (`description`, the allow-lists, `expires_at`) is cleared by null on update.
 */
import * as z from 'zod/mini';
import { MCP_SCOPES } from './mcp-scopes.js';
import { Id, QueryId, Timestamp, withMeta } from '../platform/schemas.js';
import type { Frozen } from '../platform/route.js';

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

/**
 * A setting of a key: how a key shows it (its view; the store keeps it the same), how a request
 * gives it (bounded, normalized), and what a new key gets when the create request leaves it out
 * (`initial`; none: the request must give it). One the key may hold as null is cleared by null on
 * update; for any other, null counts as absent. `onUpdate`: what the update request says of it.
 */
interface Setting<Shown extends z.ZodMiniType = z.ZodMiniType> {
  readonly shown: Shown;
  readonly given: z.ZodMiniType<NonNullable<z.output<Shown>>>;
  readonly initial?: z.output<Shown>;
  readonly onUpdate?: string;
}

/** The table's entries are {@link Setting}s, each `given` and `initial` of its own `shown` type. */
const settingsTable = <T extends { readonly [K in keyof T]: Setting<T[K] extends { shown: infer S extends z.ZodMiniType } ? S : never> }>(
  table: T,
) => table;

/**
 * THE list of a key's settings: what an admin chooses at creation, changes by update, and a
 * rotation copies (all but the expiry), in the order the requests and the audit record list them.
 * A new setting is one line here: the request bodies, the view, the stored record's type, the
 * changes an update makes and its audit diff follow from it.
 */
const KEY_SETTINGS = settingsTable({
  name: { shown: z.string(), given: Name },
  description: { shown: z.nullable(z.string()), given: Description, initial: null },
  allowed_game_ids: { shown: z.nullable(z.array(Id)), given: AllowList, initial: null },
  allowed_stream_ids: { shown: z.nullable(z.array(Id)), given: AllowList, initial: null },
  // Defaults of a new key (spec: Limits).
  rate_limit_per_minute: { shown: z.int(), given: PerMinute, initial: 60 },
  rate_limit_per_day: { shown: z.int(), given: PerDay, initial: 10_000 },
  expires_at: {
    shown: z.nullable(Timestamp),
    given: ExpiresAt,
    initial: null,
    onUpdate: 'A future ISO 8601 date-time; null removes the expiry. A rotated key’s expiry can only come sooner (409 otherwise).',
  },
  mcp_scopes: { shown: z.array(McpScope), given: McpScopes, initial: [] },
});
type Settings = typeof KEY_SETTINGS;
type SettingName = keyof Settings & string;
/** The settings' names, in the table's order. */
export const KEY_SETTING_NAMES = Object.keys(KEY_SETTINGS) as SettingName[];
/** The settings a new key gets a default for (the others a create request must give). */
type Defaulted = { [K in SettingName]: Settings[K] extends { initial: unknown } ? K : never }[SettingName];
/** The settings the key may hold as null (cleared by null on update). */
type Clearable = { [K in SettingName]: null extends z.output<Settings[K]['shown']> ? K : never }[SettingName];

/** A key's settings as it stores and shows them. */
export type StoredKeySettings = { readonly [K in SettingName]: Frozen<z.output<Settings[K]['shown']>> };

/** What a new key gets for each setting the create request leaves out. */
export const KEY_SETTING_DEFAULTS = Object.fromEntries(
  Object.entries(KEY_SETTINGS).flatMap(([name, setting]: [string, Setting]) => ('initial' in setting ? [[name, setting.initial]] : [])),
) as Pick<StoredKeySettings, Defaulted>;

/** The properties an update may carry, in the order the audit record lists them: the key's state, then its settings. */
export const CHANGEABLE_KEY_PROPERTIES = ['is_active', ...KEY_SETTING_NAMES] as const;

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

/** Each setting of the table, as `as` makes it. */
function settingsShape<Shape>(as: (setting: Setting) => z.ZodMiniType): Shape {
  return Object.fromEntries(KEY_SETTING_NAMES.map((name) => [name, as(KEY_SETTINGS[name])])) as Shape;
}
type Given<K extends SettingName> = Settings[K]['given'];
type Initial<K extends SettingName> = Settings[K] extends { initial: infer D } ? D : never;
type WithDefault<T extends z.ZodMiniType, D extends z.output<T> | null> = ReturnType<typeof withDefault<T, D>>;
type IfGiven<T extends z.ZodMiniType> = ReturnType<typeof ifGiven<T>>;

/** How a create request gives each setting: required, or optional with its default. */
const createdSettings = settingsShape<{
  [K in SettingName]: K extends Defaulted ? WithDefault<Given<K>, Extract<Initial<K>, z.output<Given<K>> | null>> : Given<K>;
}>((s) => ('initial' in s ? withDefault(s.given, s.initial as z.output<typeof s.given>) : s.given));

/** How an update request gives each setting: optional; null clears one the key may hold as null. */
const updatedSettings = settingsShape<{
  [K in SettingName]: K extends Clearable ? z.ZodMiniOptional<z.ZodMiniNullable<Given<K>>> : IfGiven<Given<K>>;
}>((s) => {
  const given = s.shown.safeParse(null).success ? z.optional(z.nullable(s.given)) : ifGiven(s.given);
  return s.onUpdate === undefined ? given : withMeta(given, { description: s.onUpdate });
});

/** Each setting as a key shows it. */
const shownSettings = settingsShape<{ [K in SettingName]: Settings[K]['shown'] }>((s) => s.shown);

export const ListKeysQuery = z.object({ org_id: QueryId });

export const CreateKeyBody = withMeta(
  z.strictObject({ org_id: Id, ...createdSettings }),
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
      ...updatedSettings,
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

// The settings where the document has always placed them (a new one goes before is_active).
const { name, description, mcp_scopes, ...otherSettings } = shownSettings;

/** A key as admins see it (list, update): never the raw key, never its hash. */
export const ApiKeyView = withMeta(
  z.object({
    id: Id,
    org_id: Id,
    name,
    description,
    key_prefix: withMeta(z.string(), { description: '`dpk_` and the next 4 characters of the key.', example: 'dpk_3f2b' }),
    ...otherSettings,
    is_active: z.boolean(),
    mcp_scopes,
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
