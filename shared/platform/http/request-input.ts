/**
 * A request's input, from the raw event to what an operation receives. First the limits every
 * request meets before any work is done for it (unrestricted resource consumption, OWASP API4):
 * the query string's length, the body's size, nesting and charset, shared by the JSON bundle and
 * the HTML page bundle. Then the JSON body, parsed once it passed them. Then validation against the
 * operation's schemas: a 400 naming the field. Every refusal is a domain error (400, 413, 414). On
 * a key-authenticated route a body's refusal waits for the key to be authenticated
 * (`shared/keys/key-pipeline.ts`: a missing or invalid key is 401 whatever the body, a valid key's
 * refused input is counted). One file for the one path a request's input takes.
 */
import type middy from '@middy/core';
import httpJsonBodyParser from '@middy/http-json-body-parser';
import type { APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2, Context } from 'aws-lambda';
import { safeParse } from 'zod/mini';
import type * as z from 'zod/v4/core';
import { InvalidInput, PayloadTooLarge, UriTooLong } from '../errors.js';
import type { RouteDefinition } from '../route.js';
import { isFieldName } from '../schemas.js';
import type { ApiContext } from './pipeline.js';
import { namedError } from './answers.js';

type Event = APIGatewayProxyEventV2;
type Result = APIGatewayProxyStructuredResultV2;

// --- Limits

/** Longest query string read (bytes as sent, percent-encoded); every real one is far shorter. */
export const MAX_QUERY_STRING_BYTES = 2048;

/**
 * Deepest JSON nesting read in a body (the body object itself is level 1). DynamoDB refuses
 * attributes nested deeper than 32 levels, and no request of this interface needs more than a few.
 */
export const MAX_JSON_DEPTH = 16;

/** Refuse a query string over {@link MAX_QUERY_STRING_BYTES} (414) before anything reads it. */
export function queryCap<C extends Context>(): middy.MiddlewareObj<APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2, Error, C> {
  return {
    before: ({ event }) => {
      if (Buffer.byteLength(event.rawQueryString ?? '') > MAX_QUERY_STRING_BYTES) {
        throw new UriTooLong(`Query string exceeds ${MAX_QUERY_STRING_BYTES} bytes`);
      }
    },
  };
}

/**
 * Refuse JSON text nested deeper than {@link MAX_JSON_DEPTH}, or holding a `\\u` escape of an
 * unpaired UTF-16 surrogate, scanning it once before it is parsed. A deep document would otherwise
 * reach recursive code (validation, serialization, the DynamoDB marshaller) and fail there as a
 * 500; an unpaired surrogate is no Unicode text at all, and DynamoDB stores only valid UTF-8.
 * Brackets inside strings do not count. Malformed text is left to the parser, which refuses it.
 */
export function assertJsonText(text: string): void {
  let depth = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (inString) {
      if (c === 0x22) inString = false;
      else if (c === 0x5c) {
        if (text[i + 1] === 'u') assertPairedEscape(text, i);
        i++; // skip the escaped character
      }
    } else if (c === 0x22) {
      inString = true;
    } else if (c === 0x5b || c === 0x7b) {
      if (++depth > MAX_JSON_DEPTH) throw new InvalidInput(`Request body is nested deeper than ${MAX_JSON_DEPTH} levels`);
    } else if (c === 0x5d || c === 0x7d) {
      depth--;
    }
  }
}

const HIGH = /^\\u[dD][89abAB][0-9a-fA-F]{2}$/;
const LOW = /^\\u[dD][c-fC-F][0-9a-fA-F]{2}$/;

/** At `at` starts a `\\uXXXX` escape: a high surrogate must be followed by a low one, a low one preceded by a high one. */
function assertPairedEscape(text: string, at: number): void {
  const escape = text.slice(at, at + 6);
  const paired = HIGH.test(escape) ? LOW.test(text.slice(at + 6, at + 12)) : !LOW.test(escape) || HIGH.test(text.slice(at - 6, at));
  if (!paired) throw new InvalidInput('Request body holds an unpaired UTF-16 surrogate (\\u escape)');
}

/**
 * Refuse a JSON body declared in another charset than UTF-8 (`application/json; charset=utf-16`):
 * the service decodes bodies as UTF-8 only (RFC 8259 §8.1), and would otherwise read something else
 * than the client sent. No charset, or `utf-8`/`utf8` (any case, quoted or not), passes.
 */
function assertUtf8ContentType(contentType: string | undefined): void {
  const charset = /;\s*charset\s*=\s*"?([^";\s]*)"?/i.exec(contentType ?? '')?.[1];
  if (charset !== undefined && !/^utf-?8$/i.test(charset)) {
    throw new InvalidInput(`Content-Type charset ${charset.slice(0, 40)} is not supported: send UTF-8 JSON`);
  }
}

// --- The JSON body

/** Largest request body accepted (docs/decisions.md#request-limits: over 64 KiB is 413). */
const MAX_BODY_BYTES = 64 * 1024;

/**
 * The JSON body: capped and checked (size, nesting, charset), then parsed. Middy's parser errors
 * become the service's own (400). On a key-authenticated route (`deferred`) a refusal is kept for
 * the handler, which decides it once the key is authenticated.
 */
export function jsonBody(deferred: boolean): middy.MiddlewareObj<Event, Result, Error, ApiContext> {
  const cap = bodyCap();
  const parser = httpJsonBodyParser();
  return {
    before: async (request) => {
      try {
        await cap.before!(request);
        await parser.before!(request);
      } catch (error) {
        const refusal = namedError(error);
        if (!deferred || !refusal) throw refusal ?? error;
        request.context.bodyRefusal = refusal;
      }
    },
  };
}

/** Refuse empty, oversized and too deeply nested bodies before parsing them. */
export function bodyCap(): middy.MiddlewareObj<Event, Result, Error, ApiContext> {
  return {
    before: ({ event }) => {
      assertUtf8ContentType(event.headers['content-type']);
      if (!event.body) throw new InvalidInput('Request body is required');
      const bytes = event.isBase64Encoded ? Buffer.from(event.body, 'base64').length : Buffer.byteLength(event.body);
      if (bytes > MAX_BODY_BYTES) throw new PayloadTooLarge(`Request body exceeds ${MAX_BODY_BYTES} bytes`);
      assertJsonText(event.isBase64Encoded ? Buffer.from(event.body, 'base64').toString('utf8') : event.body);
    },
  };
}

// --- Validation

/**
 * Parse input with a zod schema; a failure is a 400 whose message names the field and says in plain
 * words what is wrong with it (`external_ref: must be at most 255 characters`, `unknown field
 * gameId`; the words: `shared/platform/schemas.ts`), with that field as the error's `param`. Any zod 4
 * schema, classic or mini: the runtime schemas are zod/mini.
 */
export function parseWith<S extends z.$ZodType>(schema: S, input: unknown, where: 'body' | 'query'): z.output<S> {
  const result = safeParse(schema, input);
  if (result.success) return result.data;
  const issue = result.error.issues[0]!;
  const cause = result.error;
  // An unknown field is named by itself: the message and the param are that field.
  if (issue.code === 'unrecognized_keys') {
    const named = issue.keys.find(isFieldName);
    return refuse(issue.message, named === undefined ? undefined : [...issue.path, named].map(String).join('.'), cause);
  }
  const field = issue.path.map(String).join('.');
  // zod reports a missing field as a wrong type; only a field really absent is "required".
  const message = issue.code === 'invalid_type' && valueAt(input, issue.path) === undefined ? 'is required' : issue.message;
  if (field) return refuse(`${field}: ${message}`, field, cause);
  return refuse(where === 'body' && issue.code === 'invalid_type' ? 'Request body must be a JSON object' : message, undefined, cause);
}

function refuse(message: string, param: string | undefined, cause: unknown): never {
  throw new InvalidInput(message, { cause, ...(param === undefined ? {} : { param }) });
}

/** The value at a path of the input (undefined where the path leaves it). */
function valueAt(input: unknown, path: readonly PropertyKey[]): unknown {
  let value = input;
  for (const key of path) {
    if (value === null || typeof value !== 'object') return undefined;
    value = (value as Record<PropertyKey, unknown>)[key];
  }
  return value;
}

type Out<S> = S extends z.$ZodType ? z.output<S> : undefined;
/** The validated body and query of an operation's request. */
export type RequestInput<D extends RouteDefinition> = { readonly body: Out<D['body']>; readonly query: Out<D['query']> };

/** Validate a request's body and query with its operation's schemas (400 naming the field). */
export function requestInput<D extends RouteDefinition>(operation: D, event: APIGatewayProxyEventV2): RequestInput<D> {
  const body = operation.body ? parseWith(operation.body, event.body, 'body') : undefined;
  const query = operation.query ? parseWith(operation.query, event.queryStringParameters ?? {}, 'query') : undefined;
  return { body, query } as RequestInput<D>;
}
