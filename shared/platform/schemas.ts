/**
 * Building blocks of the runtime schemas, and the words their refusals are in. They use `zod/mini`
 * rather than classic zod: the same validation core and messages, but functions instead of methods,
 * so a bundle carries only what it uses (zod in the validate-session bundle: 103 KB minified with
 * classic zod, 37 KB with mini).
 *
 * zod's messages are the service's own plain words, set once for the whole process when this module
 * loads: what a 400 says after the field's name (`external_ref: must be at most 255 characters`,
 * `game_id: must be an integer`), never the validator's vocabulary ("expected record", "received
 * number"). `zod/mini` loads no locale of its own; this replaces zod's English locale
 * (`zod/locales`), which bundles no longer carry. Every schema module imports this one, and so do
 * `env.ts` (for its effect) and the parser (`shared/platform/http/pipeline.ts`): it has run
 * before any parse. A check's own message (`must be a UUID`) takes precedence over these. One file,
 * so that the words cannot be left out where the schemas are.
 */
import * as z from 'zod/mini';

// --- The words of a refusal

/** A type zod expected, as a sentence says it. */
const TYPES: Record<string, string> = {
  string: 'a string',
  number: 'a number',
  int: 'an integer',
  boolean: 'true or false',
  object: 'a JSON object',
  record: 'a JSON object',
  array: 'a list',
  tuple: 'a list',
  null: 'null',
};

/** String formats as a sentence names them. */
const FORMATS: Record<string, string> = {
  datetime: 'must be an ISO 8601 date-time with a time zone (2027-01-01T00:00:00Z)',
  uuid: 'must be a UUID',
  url: 'must be a URL',
};

/** Size limits by what is measured: a string's characters, a list's items. */
const UNITS: Record<string, string> = { string: ' characters', array: ' items', set: ' items', file: ' bytes' };

/** A limit as words: `at most 255 characters`, `less than 10`. */
function bound(exact: boolean | undefined, inclusive: boolean | undefined, most: boolean, value: number | bigint, origin: string): string {
  const words = exact ? 'exactly' : inclusive === false ? (most ? 'less than' : 'more than') : most ? 'at most' : 'at least';
  return `${words} ${String(value)}${UNITS[origin] ?? ''}`;
}

/** Sizes state what is allowed: `must be at most 255 characters`, `must have at least 1 items` reads as `must not be empty`. */
function size(issue: z.core.$ZodIssueTooBig | z.core.$ZodIssueTooSmall): string {
  const most = issue.code === 'too_big';
  const value = most ? issue.maximum : (issue as z.core.$ZodIssueTooSmall).minimum;
  if (!most && Number(value) === 1 && UNITS[issue.origin] && issue.inclusive !== false) return 'must not be empty';
  return `must be ${bound(issue.exact, issue.inclusive, most, value, issue.origin)}`;
}

/**
 * A caller's field name is repeated (in the answer and in the request's log line) only when it looks
 * like one: a letter, then letters, digits or `_`, at most 32 characters. Anything else could be a
 * value sent as a key (a session token, an API key: 44 characters), which must not reach the log.
 */
export function isFieldName(key: string): boolean {
  return /^[A-Za-z][A-Za-z0-9_]{0,31}$/.test(key);
}

/** `unknown field gameId`, `unknown fields a, b`; names that are no field names are only counted. */
function unknownFields(keys: readonly string[]): string {
  const named = keys.filter(isFieldName);
  const others = keys.length - named.length;
  const words = `unknown field${keys.length > 1 ? 's' : ''}`;
  if (others === 0) return `${words} ${named.join(', ')}`;
  const unnamed = others === 1 ? 'one whose name is not an identifier' : `${others} whose names are not identifiers`;
  return named.length ? `${words} ${named.join(', ')}, and ${unnamed}` : `${words}: ${unnamed}`;
}

/** The plain-words message of an issue (the field's name is put before it by the parser). */
function plainMessage(issue: z.core.$ZodRawIssue): string {
  switch (issue.code) {
    case 'invalid_type':
      return `must be ${TYPES[issue.expected] ?? issue.expected}`;
    case 'invalid_value':
      return issue.values.length === 1 ? `must be ${JSON.stringify(issue.values[0])}` : `must be one of ${issue.values.join(', ')}`;
    case 'too_big':
    case 'too_small':
      return size(issue as z.core.$ZodIssueTooBig | z.core.$ZodIssueTooSmall);
    case 'invalid_format':
      return FORMATS[issue.format] ?? 'does not have the expected form';
    case 'not_multiple_of':
      return `must be a multiple of ${issue.divisor}`;
    case 'unrecognized_keys':
      return unknownFields(issue.keys);
    default:
      return 'is not valid';
  }
}

z.config({ localeError: plainMessage });

// --- Building blocks

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
