/**
 * zod's messages in the service's own plain words, set once for the whole process: what a 400 says
 * after the field's name (`external_ref: must be at most 255 characters`, `game_id: must be an
 * integer`), never the validator's vocabulary ("expected record", "received number"). The runtime
 * schemas use `zod/mini`, which loads no locale of its own; this replaces zod's English locale
 * (`zod/locales`), which bundles no longer carry. Imported for its effect by `common.ts` (so by
 * every schema module), `env.ts` and the parser (`shared/platform/http/request-input.ts`): it has run before any parse.
 * A check's own message (`must be a UUID`) takes precedence over these.
 */
import { config } from 'zod/mini';
import type * as z from 'zod/v4/core';

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
function size(issue: z.$ZodIssueTooBig | z.$ZodIssueTooSmall): string {
  const most = issue.code === 'too_big';
  const value = most ? issue.maximum : (issue as z.$ZodIssueTooSmall).minimum;
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
function plainMessage(issue: z.$ZodRawIssue): string {
  switch (issue.code) {
    case 'invalid_type':
      return `must be ${TYPES[issue.expected] ?? issue.expected}`;
    case 'invalid_value':
      return issue.values.length === 1 ? `must be ${JSON.stringify(issue.values[0])}` : `must be one of ${issue.values.join(', ')}`;
    case 'too_big':
    case 'too_small':
      return size(issue as z.$ZodIssueTooBig | z.$ZodIssueTooSmall);
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

config({ localeError: plainMessage });
