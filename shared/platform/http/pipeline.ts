/**
 * THE middy bundle every JSON function uses, and the path a request's input takes through it. A
 * function hands it its operation's declaration (its feature's `routes/` module: credential,
 * schemas, how it answers), its part of the services and one async function from validated input
 * to data. The bundle normalizes headers, caps and parses the JSON body, checks the credential,
 * validates, runs the operation, renders its answer, adds rate-limit headers, maps every thrown
 * error to its status and envelope, and writes one log line and one set of metrics per request
 * (`answers.ts`: `respond`). Operations that take an API key use `keyApi`
 * (`shared/keys/key-pipeline.ts`).
 *
 * The request's input, from the raw event to what an operation receives (below the bundle): first
 * the limits every request meets before any work is done for it (unrestricted resource consumption,
 * OWASP API4): the query string's length, the body's size, nesting and charset, shared by the JSON
 * bundle and the HTML page bundle. Then the JSON body, parsed once it passed them. Then validation
 * against the operation's schemas: a 400 naming the field. Every refusal is a domain error (400,
 * 413, 414). On a key-authenticated route a body's refusal waits for the key to be authenticated
 * (`shared/keys/key-pipeline.ts`: a missing or invalid key is 401 whatever the body, a valid key's
 * refused input is counted).
 */
import middy from '@middy/core';
import httpEventNormalizer from '@middy/http-event-normalizer';
import httpHeaderNormalizer from '@middy/http-header-normalizer';
import type { APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2, Context } from 'aws-lambda';
import type { AdminIdentity, BearerVerifier } from '../bearer.js';
import { Unauthenticated, type DomainError, InvalidInput, PayloadTooLarge, UriTooLong } from '../errors.js';
import { withinDeadline } from '../time.js';
import type { CallContext } from '../call.js';
import { API_PATH, type Answer, type RouteDefinition } from '../route.js';
import { originVerify, secretsLoaded } from '../secrets.js';
import { annotate } from '../observability.js';
import { presentedApiKey, respond, responseOf } from './answers.js';
import { namedError } from './named-error.js';
import httpJsonBodyParser from '@middy/http-json-body-parser';
import { safeParse } from 'zod/mini';
import type * as z from 'zod/v4/core';
import { isFieldName } from '../schemas.js';

type Event = APIGatewayProxyEventV2;
type Result = APIGatewayProxyStructuredResultV2;
type Auth<D extends RouteDefinition, A extends RouteDefinition['auth']> = D['auth'] extends A ? true : false;

/** What the bundle itself takes from a function's services: the verifier of bearer routes (key routes: `keyApi`'s own, in the keys feature). */
type BundleNeeds<D extends RouteDefinition> = Auth<D, 'bearer'> extends true ? { readonly bearer: BearerVerifier } : unknown;

/** The Lambda context with this request's call context attached by the bundle. */
export interface ApiContext extends Context {
  call?: CallContext;
  /** The request's id as answered and logged: the caller's `X-Request-Id` when valid, else the call's (`answers.ts`: `respond`). */
  requestId?: string;
  /** A refusal answered without being thrown (stored for repeats under an `Idempotency-Key`): the reason its line names. */
  refusal?: unknown;
  /** The org admin a bearer route's token identifies (set before the body is parsed). */
  admin?: AdminIdentity;
  /**
   * Why the body was refused, on a key-authenticated route: kept until the key is authenticated, so
   * that a missing or invalid key is 401 whatever the body, and a valid key's 400 is counted.
   */
  bodyRefusal?: DomainError;
}

/** What an operation receives (a key route's: `KeyOperationInput`, in the keys feature). */
export type OperationInput<D extends RouteDefinition, S> = RequestInput<D> & {
  readonly call: CallContext;
  /** The audit action of the call: the operation's name. */
  readonly action: D['operation'];
  /** The function's part of the services ({@link Wiring.services}). */
  readonly services: S;
  readonly event: Event;
} & (Auth<D, 'bearer'> extends true ? { readonly admin: AdminIdentity } : unknown);

/** How a function binds its operation to the code that serves it. */
export interface Wiring<D extends RouteDefinition, S, P> {
  /**
   * The part of the services the operation uses (its feature's `services.ts`): the function's bundle carries
   * only that part's code. Required for bearer routes (the verifier), key routes (the key calls, which
   * count a refused input) and idempotent operations (the records).
   */
  readonly services?: () => S & BundleNeeds<D>;
  /**
   * Reads that need only the request, not the key (create-session: the game or stream). On a key
   * route the bundle starts them together with the key's authentication and the `Idempotency-Key`
   * claim, so that they cost no stage of their own; the operation awaits `prefetched`.
   */
  readonly prefetch?: (input: RequestInput<D>, services: S) => Promise<P>;
  /**
   * A check of the request itself, before its credential is looked at (the MCP endpoint's browser
   * `Origin` allow-list): what it throws is the answer.
   */
  readonly guard?: (event: Event, services: S) => void;
}

/**
 * Wrap an operation that takes no API key into a Lambda handler for API Gateway HTTP API (payload
 * v2) events (key operations: `keyApi`, in `shared/keys/key-pipeline.ts`). The handler carries the declaration it
 * was built from (`operations`), which a test holds against the routes table.
 */
export function api<const D extends RouteDefinition, S = undefined, P = undefined>(
  operation: D,
  wiring: Wiring<D, S, P>,
  run: (input: OperationInput<D, S>) => Promise<Answer<D>>,
) {
  if (operation.auth === 'apiKey') throw new Error(`operation ${operation.operation} takes an API key: wrap it with keyApi()`);
  // Every DynamoDB call of the request ends before its deadline (`shared/platform/time.ts`).
  const handler = bundle(operation, wiring).handler(
    withinDeadline(async (event: Event, context: ApiContext) => {
      const services = wiring.services?.() as S;
      wiring.guard?.(event, services);
      const base = { call: context.call!, action: operation.operation, services, event };
      const input = requestInput(operation, event);
      annotate(base.call, { org_id: orgOf(input) });
      const data = await run({ ...base, ...input, admin: context.admin } as never);
      return responseOf(operation.reply, base.call, { data });
    }),
  );
  return Object.assign(handler, { operations: [operation] as readonly D[] });
}

/**
 * The middleware every JSON function runs, as its operation declares it: call context and log line,
 * origin guard, query cap, the bearer check, the JSON body.
 */
export function bundle<D extends RouteDefinition, S, P>(operation: D, wiring: Wiring<D, S, P>) {
  // The types demand the services where the bundle needs them; this catches a wiring that omits them (at load).
  if ((operation.auth !== 'none' || operation.idempotent) && !wiring.services) {
    throw new Error(`operation ${operation.operation} needs its services (a bearer verifier, key calls or idempotency records)`);
  }
  const chain = middy<Event, Result, Error, ApiContext>()
    .use(httpHeaderNormalizer())
    .use(httpEventNormalizer())
    .use(respond(operation))
    .use(originVerify())
    // After the origin check: a request that skipped the edge makes no Secrets Manager read.
    .use(secretsLoaded())
    .use(queryCap());
  if (operation.auth === 'bearer') chain.use(bearerAuth(operation, () => (wiring.services!() as { bearer: BearerVerifier }).bearer));
  // A key route's refused body waits for the key to be authenticated (`shared/keys/key-pipeline.ts`).
  if (operation.body) chain.use(jsonBody(operation.auth === 'apiKey'));
  return chain;
}

/**
 * Verify the admin's bearer token first, before the body is even parsed: a caller without a valid
 * token learns nothing else. Who they may act for is the domain's question (catalog membership).
 * A caller holding an API key is told this is not its credential ({@link wrongCredential}).
 */
function bearerAuth(
  operation: Pick<RouteDefinition, 'method' | 'path' | 'action'>,
  bearer: () => BearerVerifier,
): middy.MiddlewareObj<Event, Result, Error, ApiContext> {
  return {
    before: async ({ event, context }) => {
      const wrong = wrongCredential(operation, event.headers);
      if (wrong) throw new Unauthenticated(wrong);
      context.admin = await bearer().verify(event.headers.authorization);
    },
  };
}

/**
 * Why a bearer route's request plainly holds the wrong credential, or undefined: an API key
 * presented (partners' servers call with one), or a POST on the shared path without `?action=`
 * (create-key), which is most often a create-session whose `?action=` went missing.
 */
function wrongCredential(operation: Pick<RouteDefinition, 'method' | 'path' | 'action'>, headers: Event['headers']): string | undefined {
  // A JWT presented is judged by the verifier, whatever else the request holds.
  if (headers.authorization && !presentedApiKey({ authorization: headers.authorization })) return undefined;
  if (operation.method === 'POST' && operation.path === API_PATH && !operation.action) {
    return `POST ${API_PATH} without ?action= creates an API key and takes an org admin's bearer token (Authorization header); to mint a session, call ?action=create-session with your x-api-key`;
  }
  if (presentedApiKey(headers)) return "This operation takes an org admin's bearer token (Authorization header), not an API key";
  return undefined;
}

/** The org an admin request names (`org_id` of its query or body), for its log line; undefined elsewhere. */
function orgOf(input: { readonly body?: unknown; readonly query?: unknown }): number | undefined {
  const named = (input.query as { org_id?: unknown } | undefined)?.org_id ?? (input.body as { org_id?: unknown } | undefined)?.org_id;
  return typeof named === 'number' ? named : undefined;
}

// --- The request's input: limits

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
function jsonBody(deferred: boolean): middy.MiddlewareObj<Event, Result, Error, ApiContext> {
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
