import * as z from 'zod/mini';
import { Id, SessionToken, Timestamp, withMeta } from '../platform/schemas.js';

const METADATA_MAX_BYTES = 4096;

/** Nullable optional: JSON clients send null for "not given"; both mean absent here. */
const absentable = <T extends z.ZodMiniType>(schema: T) =>
  z.pipe(
    z.nullish(schema),
    z.transform((v) => v ?? null),
  );

/** Whether every number in a JSON value is finite (bodies are at most 16 levels deep: `shared/platform/http/pipeline.ts`). */
function allFinite(value: unknown): boolean {
  if (typeof value === 'number') return Number.isFinite(value);
  if (value === null || typeof value !== 'object') return true;
  return Object.values(value).every(allFinite);
}

/**
 * Any JSON object (a record of unknown values), stated as `additionalProperties: true`: zod's
 * empty schema `{}` for "any value" is what strict schema checkers (the MCP Inspector) warn about.
 */
const JsonObject = withMeta(z.record(z.string(), z.unknown()), { additionalProperties: true });

/**
 * A text that may be null, as at most 255 characters: the bound keeps zod from writing the type
 * list `type: ["string", "null"]` (which strict MCP clients warn about) instead of an `anyOf`.
 */
const NullableRef = z.nullable(z.string().check(z.maxLength(255)));

/**
 * The player a token is bound to: 1 to 128 printable ASCII characters (space to `~`). It is compared
 * byte for byte with the consumption's `player_uuid`, so text that looks alike in other encodings or
 * Unicode normalizations is kept out rather than refused later as another player.
 */
const PlayerRef = z.string().check(z.minLength(1), z.maxLength(128), z.regex(/^[\x20-\x7e]*$/, 'must be printable ASCII (space to ~)'));

const Metadata = withMeta(
  z.record(z.string(), z.unknown()).check(
    // A number too large for a double (`1e400`) parses as Infinity, which JSON would store as null.
    z.refine(allFinite, { message: 'numbers must be finite (within ±1.8e308)' }),
    z.refine((metadata) => Buffer.byteLength(JSON.stringify(metadata)) <= METADATA_MAX_BYTES, {
      message: `must serialize to at most ${METADATA_MAX_BYTES} bytes`,
    }),
  ),
  { description: 'Arbitrary JSON object, at most 4,096 bytes serialized.', additionalProperties: true },
);

/**
 * The create-session fields and their rules, without a component id: MCP tool schemas must be
 * inline objects (a top-level `$ref` is not a valid tool `inputSchema`).
 */
export const CreateSessionFields = z
  .strictObject({
    // Described for the documents (OpenAPI, MCP) in `session-docs.ts`: the functions' bundles do without.
    game_id: absentable(Id),
    stream_id: absentable(Id),
    external_ref: absentable(z.string().check(z.maxLength(255))),
    metadata: absentable(Metadata),
    player_ref: absentable(PlayerRef),
    // null is absent here too (as for every optional field): the default lifetime.
    expires_in_minutes: withMeta(
      z.pipe(
        z.nullish(z.int().check(z.minimum(1), z.maximum(43_200))),
        z.transform((v) => v ?? 1440),
      ),
      { description: 'Minutes until expiry, 1 to 43,200. Default 1440 (24 hours).' },
    ),
  })
  .check((ctx) => {
    const { game_id, stream_id } = ctx.value;
    // `param` names a field to change: the one to add when neither is given, the second when both are.
    if ((game_id === null) === (stream_id === null)) {
      const path = game_id === null ? ['game_id'] : ['stream_id'];
      ctx.issues.push({ code: 'custom', input: ctx.value, path, message: 'exactly one of game_id or stream_id is required' });
    }
  });
export const CreateSessionBody = withMeta(CreateSessionFields, { id: 'CreateSessionRequest' });
export type CreateSessionBody = z.output<typeof CreateSessionBody>;

export const ValidateSessionQuery = z.object({ token: SessionToken });

export const ConsumeSessionBody = withMeta(
  z.strictObject({ token: SessionToken, player_uuid: absentable(z.string().check(z.maxLength(255))) }),
  {
    id: 'ConsumeSessionRequest',
  },
);

export const RevokeSessionBody = withMeta(z.strictObject({ token: SessionToken }), { id: 'RevokeSessionRequest' });

const Ids = { game_id: z.nullable(Id), stream_id: z.nullable(Id) };

export const CreatedSession = withMeta(z.object({ token: SessionToken, ...Ids, expires_at: Timestamp, external_ref: NullableRef }), {
  id: 'CreatedSession',
});

export const SessionView = withMeta(
  z.object({
    valid: z.boolean(),
    status: z.enum(['active', 'consumed', 'expired', 'revoked']),
    ...Ids,
    expires_at: Timestamp,
    external_ref: NullableRef,
    metadata: z.nullable(JsonObject),
    player_bound: withMeta(z.boolean(), {
      description:
        'The token is bound to a player (`player_ref` at create-session): only that `player_uuid` consumes it. The ref is never shown.',
    }),
  }),
  { id: 'SessionView' },
);

export const ConsumedSession = withMeta(
  z.object({
    session_id: Id,
    org_id: Id,
    ...Ids,
    external_ref: NullableRef,
    metadata: z.nullable(JsonObject),
  }),
  { id: 'ConsumedSession' },
);

/** The optional `Idempotency-Key` request header of create-session (its rules: `shared/keys/key-pipeline.ts`). */
export const IdempotencyKeyHeader = z.object({
  'idempotency-key': withMeta(z.optional(z.string().check(z.regex(/^[\x20-\x7e]{1,255}$/))), {
    description:
      'Makes a retry safe: 1 to 255 printable ASCII characters, scoped to the API key, remembered 24 hours. A repeat with the same ' +
      'body returns the stored answer (`Idempotent-Replayed: true`) and mints and counts nothing; another body: 422; while the ' +
      'first is still running: 409 with `Retry-After`. 5xx and 429 answers are not stored.',
    example: 'order-42-attempt',
  }),
});

/** Response header of an answer given again for the same `Idempotency-Key`. */
export const ReplayedHeader = z.object({
  'idempotent-replayed': withMeta(z.optional(z.literal('true')), {
    description:
      'Present on a stored answer given again (same Idempotency-Key and body): status, body and rate-limit headers are the original ones.',
  }),
});
