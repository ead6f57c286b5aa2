/**
 * Everything that renders an HTTP answer, success or error, for every JSON function: the headers
 * every answer carries, the `{success, ...}` envelope, a thrown error as its status and envelope
 * (THE error table, `shared/platform/errors.ts`, gives the status; the error its message and
 * headers), and an operation's outcome as what a client gets and what a claimed `Idempotency-Key`
 * stores to give again. The HTML pages, the local front, the edge rewrite and the WAF's 429 render
 * through here too. One file, named for what it makes, so that "where is this answer built?" has
 * one place to look; the middleware that applies it to every request is `call-context.ts`.
 */
import type { APIGatewayProxyStructuredResultV2 } from 'aws-lambda';
import type { CallContext, RateLimitState } from '../call.js';
import { codeOf, Conflict, DomainError, InvalidInput, Overloaded, RateLimited, statusOf } from '../errors.js';
import type { RouteDefinition } from '../route.js';

type Result = APIGatewayProxyStructuredResultV2;

// --- Headers and the envelope

/**
 * Headers of every answer the service builds, whatever its type: `nosniff`, so that a browser never
 * runs an answer (an error quoting the caller's input, a document) as another type than it says.
 * `call-context.ts` adds them to every function's answer, the local front to its own; the edge adds
 * them too (`infra/edge.ts`), and the WAF's 429 names them itself (`infra/waf.ts`).
 */
export const ANSWER_HEADERS: Readonly<Record<string, string>> = { 'x-content-type-options': 'nosniff' };

/** The header a caller may name its request with, and that every answer carries. */
export const REQUEST_ID_HEADER = 'x-request-id';

const JSON_HEADERS = { 'content-type': 'application/json; charset=utf-8', 'cache-control': 'no-store', ...ANSWER_HEADERS };

/** What an error answer says: the message, its stable code, and the field at fault when one is. */
interface ErrorPayload {
  readonly error: string;
  readonly code: string;
  readonly param?: string | undefined;
}

/**
 * A JSON response: `{success: true, data}` for 2xx, `{success: false, error, code, param?}`
 * otherwise (`param` only when a field is at fault).
 */
export function jsonResponse(statusCode: number, payload: { data: unknown } | ErrorPayload, headers: Record<string, string> = {}): Result {
  const body =
    'data' in payload
      ? { success: true, data: payload.data }
      : { success: false, error: payload.error, code: payload.code, ...(payload.param === undefined ? {} : { param: payload.param }) };
  return { statusCode, headers: { ...JSON_HEADERS, ...headers }, body: JSON.stringify(body) };
}

/**
 * Rate-limit headers per draft-ietf-httpapi-ratelimit-headers: `RateLimit-Policy` names both
 * windows; `RateLimit` reports the window closest to exhaustion.
 */
export function rateLimitHeaders(state: RateLimitState | undefined): Record<string, string> {
  if (!state || state.windows.length === 0) return {};
  const policy = state.windows.map((w) => `"${w.name}";q=${w.limit};w=${w.windowSeconds}`).join(', ');
  // On a tie the window that resets later binds longer (both exhausted: the day).
  const tightest = state.windows.reduce((a, b) =>
    b.remaining < a.remaining || (b.remaining === a.remaining && b.resetSeconds > a.resetSeconds) ? b : a,
  );
  return { 'ratelimit-policy': policy, ratelimit: `"${tightest.name}";r=${tightest.remaining};t=${tightest.resetSeconds}` };
}

// --- A thrown error as its answer

/** Middy's own HTTP errors (JSON parser), in the service's words; both are the spec's 400. */
const MIDDY_MESSAGES: Record<number, string> = {
  415: 'Content-Type must be application/json',
  422: 'Request body is not valid JSON',
};

/** A client error middy threw itself (its JSON parser: 415, 422; middy exposes client errors only); undefined for anything else. */
function middyStatus(error: unknown): number | undefined {
  const e = error as { statusCode?: number; expose?: boolean } | null;
  return typeof e?.statusCode === 'number' && e.expose ? e.statusCode : undefined;
}

/**
 * A thrown value as a named error: a domain error as it is; a client error of middy's (its JSON
 * parser) as `InvalidInput` in the service's words; undefined for anything else (a failure: 500).
 */
export function namedError(error: unknown): DomainError | undefined {
  if (error instanceof DomainError) return error;
  const middy = middyStatus(error);
  return middy === undefined ? undefined : new InvalidInput(MIDDY_MESSAGES[middy] ?? 'Bad request', { cause: error });
}

/** What an error becomes: its status, the message the client may see, and extra headers. */
interface ErrorOutcome {
  readonly status: number;
  readonly message: string;
  readonly headers: Record<string, string>;
}

/**
 * The one place an error is classified: a named error's status (from the error table), message and
 * headers; anything else a generic 500 whose message says nothing about the cause. The JSON
 * envelope and the HTML pages both render this.
 */
export function errorOutcome(error: unknown): ErrorOutcome {
  const named = namedError(error);
  if (!named) return { status: statusOf(error), message: 'Internal server error', headers: {} };
  return { status: statusOf(named), message: named.message, headers: headersOf(named) };
}

/**
 * The headers an error adds to its answer: when to retry. (A 405's `Allow` is added where 405s are
 * answered: routing, `shared/routes.ts`; no function throws one, so their bundles do without.)
 */
function headersOf(error: DomainError): Record<string, string> {
  if (error instanceof RateLimited) return { 'retry-after': String(error.retryAfterSeconds) };
  if (error instanceof Overloaded) return { 'retry-after': '1' };
  if (error instanceof Conflict && error.retryAfterSeconds !== undefined) return { 'retry-after': String(error.retryAfterSeconds) };
  return {};
}

/**
 * The one place an error becomes a JSON response: its outcome in the spec's `{success:false, error}`
 * envelope, with the fields a client programs against added beside them (docs/decisions.md#error-codes):
 * the table's stable `code` and the field at fault (`param`) when one is. `request_id` is added where
 * the request's id is known ({@link withRequestId}).
 */
export function errorResponse(error: unknown, headers: Record<string, string> = {}): Result {
  const outcome = errorOutcome(error);
  const named = namedError(error);
  return jsonResponse(
    outcome.status,
    { error: outcome.message, code: codeOf(named ?? error), param: named?.param },
    { ...headers, ...outcome.headers },
  );
}

/**
 * An answer with the request's id: the `x-request-id` header and, in an error envelope, the same id
 * as `request_id` (what a client quotes to support). A success, or a body that is no error envelope
 * (an HTML page), keeps its body.
 */
export function withRequestId(response: Result, requestId: string): Result {
  const headers = { ...(response.headers as Record<string, string>), [REQUEST_ID_HEADER]: requestId };
  const body = response.body;
  if ((response.statusCode ?? 200) < 400 || !body?.startsWith('{"success":false')) return { ...response, headers };
  return { ...response, headers, body: JSON.stringify({ ...(JSON.parse(body) as object), request_id: requestId }) };
}

// --- An operation's outcome as its answer

/** What an operation ended with: its data, or the error it threw. */
export type Outcome = { readonly data: unknown } | { readonly error: unknown };

/** Settle an operation's promise into its {@link Outcome} (an error is a value here, to be rendered or rethrown). */
export function outcomeOf(result: Promise<unknown>): Promise<Outcome> {
  return result.then(
    (data) => ({ data }),
    (error: unknown) => ({ error }),
  );
}

/**
 * THE rendering of an operation's outcome as its HTTP answer: an error in its envelope
 * ({@link errorResponse}); data in the success envelope, as a document of its own, or as the
 * transport's own result, as the operation declares (`reply`); with the rate-limit headers of the
 * call. What a client gets, and what a claimed `Idempotency-Key` stores to give again.
 */
export function responseOf(reply: RouteDefinition['reply'], call: CallContext, outcome: Outcome): Result {
  const response =
    'error' in outcome
      ? errorResponse(outcome.error)
      : reply === 'transport'
        ? (outcome.data as Result)
        : reply === 'document'
          ? documentResponse(outcome.data)
          : jsonResponse(200, { data: outcome.data });
  return { ...response, headers: { ...(response.headers as Record<string, string>), ...rateLimitHeaders(call.rateLimit) } };
}

/** A JSON document served as it is (no envelope); it changes only with a deployment. */
function documentResponse(document: unknown): Result {
  return {
    statusCode: 200,
    headers: { 'content-type': 'application/json; charset=utf-8', 'cache-control': 'public, max-age=300' },
    body: JSON.stringify(document),
  };
}
