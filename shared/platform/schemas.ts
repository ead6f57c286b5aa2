/**
 * Building blocks of the runtime schemas. They use `zod/mini` rather than classic zod: the same
 * validation core and messages, but functions instead of methods, so a bundle carries only what it
 * uses (zod in the validate-session bundle: 103 KB minified with classic zod, 37 KB with mini).
 */
import * as z from 'zod/mini';
import './schema-locale.js';

/**
 * A copy of a schema carrying metadata (description, example, component `id`), which the OpenAPI
 * document and the MCP tool schemas read from zod's global registry: classic zod's `.meta()`. A copy,
 * not the schema itself, so that one base (a day, an id) can carry a different description per field.
 */
export function withMeta<T extends z.ZodMiniType>(schema: T, metadata: z.core.GlobalMeta): T {
  const copy = schema.clone();
  z.globalRegistry.add(copy, metadata);
  return copy;
}

/** A positive integer id that survives JSON (below 2^53). */
export const Id = z.int().check(z.positive(), z.maximum(Number.MAX_SAFE_INTEGER));

/** An id from a query string: digits only, then the same bounds. */
export const QueryId = z.pipe(z.pipe(z.string().check(z.regex(/^[0-9]{1,16}$/, 'must be a positive integer')), z.transform(Number)), Id);

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** A session token: a UUID, case-insensitive on input, lower case from here on. */
export const SessionToken = withMeta(
  z.pipe(
    z.string().check(z.regex(UUID, 'must be a UUID')),
    z.transform((s) => s.toLowerCase()),
  ),
  // `type` spelled out: a transform has no JSON Schema type of its own (an answer's token would be untyped).
  { type: 'string', format: 'uuid', example: '3f2b8c1e-9a4d-4e7f-8b21-6c0d5e9f1a2b' },
);

/** ISO 8601 UTC date-time with milliseconds, as every response gives it. */
export const Timestamp = withMeta(z.iso.datetime(), { example: '2026-11-23T10:00:00.000Z' });

/** The success envelope around a response's data. */
export function envelope<T extends z.core.SomeType>(data: T) {
  return z.object({ success: z.literal(true), data });
}

/**
 * The error envelope: the spec's `success` and `error`, and beside them what a client programs
 * against (docs/errors.md, docs/decisions.md#error-codes). `codes`: THE error table's.
 */
export function errorEnvelope(codes: readonly [string, ...string[]]) {
  return z.object({
    success: z.literal(false),
    error: withMeta(z.string(), { description: 'What went wrong, in a sentence for people (it may be reworded: branch on `code`).' }),
    code: withMeta(z.enum(codes), { description: 'Stable code of the refusal (docs/errors.md).', example: 'invalid_input' }),
    param: withMeta(z.optional(z.string()), { description: 'The request field at fault, when one is.', example: 'game_id' }),
    // Optional in the schema because one refusal has none: the edge firewall's 429 is a fixed body
    // (WAF custom responses cannot hold a per-request value), answered before any function runs.
    request_id: withMeta(z.optional(z.string()), {
      description:
        'The request’s id, equal to the `x-request-id` header. Present on every answer of the service; absent only on the ' +
        'edge firewall’s 429 (a fixed body, sent before the request reaches the service).',
    }),
  });
}
