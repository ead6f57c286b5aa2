/**
 * Everything that renders an HTTP answer, success or error, for every JSON function: the headers
 * every answer carries, the `{success, ...}` envelope, a thrown error as its status and envelope
 * (THE error table, `shared/platform/errors.ts`, gives the status; the error its message and
 * headers), and an operation's outcome as what a client gets and what a claimed `Idempotency-Key`
 * stores to give again. The HTML pages, the local front, the edge rewrite and the WAF's 429 render
 * through here too. Then the middleware that applies it to every request, which every bundle (JSON
 * and HTML) puts first after the normalizers ({@link respond}): it sets up the call context every
 * later step reads (request id, caller's address, user agent), adds the envelope headers
 * (`nosniff`, rate limit, `WWW-Authenticate`, `x-request-id`), maps errors, and writes the request's
 * line and metrics (`shared/platform/observability.ts`). One file, named for what it makes, so that
 * "where is this answer built?" has one place to look.
 */
import { isIP } from 'node:net';
import type middy from '@middy/core';
import type { APIGatewayProxyStructuredResultV2, APIGatewayProxyEventV2 } from 'aws-lambda';
import type { CallContext, RateLimitState } from '../call.js';
import { codeOf, Conflict, DomainError, Overloaded, RateLimited, statusOf } from '../errors.js';
import type { RouteDefinition } from '../route.js';
import type { ApiContext } from './pipeline.js';
import { beginRequest, logRequest } from '../observability.js';
import { namedError } from './named-error.js';

type Event = APIGatewayProxyEventV2;
type Result = APIGatewayProxyStructuredResultV2;
type Request = middy.Request<Event, Result, Error, ApiContext>;

// --- Headers and the envelope

/**
 * Headers of every answer the service builds, whatever its type: `nosniff`, so that a browser never
 * runs an answer (an error quoting the caller's input, a document) as another type than it says.
 * {@link respond} adds them to every function's answer, the local front to its own; the edge adds
 * them too (`infra/edge.ts`), and the WAF's 429 names them itself (`infra/waf.ts`).
 */
export const ANSWER_HEADERS: Readonly<Record<string, string>> = { 'x-content-type-options': 'nosniff' };

/** The header a caller may name its request with, and that every answer carries. */
const REQUEST_ID_HEADER = 'x-request-id';

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

// --- Every request's answer, its call context and its line

/** The header that marks a stored answer given again: `shared/keys/key-pipeline.ts` sets it, the request line reads it. */
export const REPLAYED_HEADER = 'idempotent-replayed';

/**
 * Call context, envelope headers, error mapping and the request's log line. The HTML page bundle
 * reuses it with its own error renderer and an operation read from the event.
 */
export function respond(
  operation: Pick<RouteDefinition, 'operation' | 'auth'> | ((event: Event) => string),
  renderError: (error: unknown) => Result = errorResponse,
): middy.MiddlewareObj<Event, Result, Error, ApiContext> {
  const started = new WeakMap<object, number>();
  const auth = typeof operation === 'function' ? undefined : operation.auth;
  const finish = (request: Request, response: Result): Result => {
    const { call } = request.context;
    const status = response.statusCode ?? 200;
    const requestId = request.context.requestId ?? call?.requestId ?? '';
    const headers: Record<string, string> = {
      ...ANSWER_HEADERS,
      ...(response.headers as Record<string, string>),
      ...rateLimitHeaders(call?.rateLimit),
      ...(status === 401 && auth && auth !== 'none' ? { 'www-authenticate': challenge(auth, request.event.headers ?? {}) } : {}),
    };
    logRequest({
      operation: typeof operation === 'function' ? operation(request.event) : operation.operation,
      method: request.event.requestContext.http.method,
      status,
      requestId,
      durationMs: Date.now() - (started.get(request) ?? Date.now()),
      call,
      error: request.error ?? request.context.refusal,
      replayed: headers[REPLAYED_HEADER] === 'true',
      fields: { key_prefix: keyPrefixOf(request.event), actor: request.context.admin?.subject },
    });
    return withRequestId({ ...response, headers }, requestId);
  };
  return {
    before: (request) => {
      started.set(request, Date.now());
      const { requestContext, headers } = request.event;
      // One id everywhere: the answer, the log line and the audit record (docs/decisions.md#audit);
      // the gateway's stays beside it for what must be unique (`uniqueRequestId`).
      const requestId = requestIdOf(headers ?? {}, requestContext.requestId);
      // The caller's address is the socket's until the origin check proves CloudFront forwarded the request (`shared/platform/secrets.ts`).
      request.context.call = {
        requestId,
        gatewayRequestId: requestContext.requestId,
        sourceIp: requestContext.http.sourceIp,
        userAgent: requestContext.http.userAgent ?? '',
      };
      request.context.requestId = requestId;
      beginRequest(requestId);
    },
    after: (request) => {
      request.response = finish(request, request.response!);
    },
    onError: (request) => {
      request.response = finish(request, renderError(request.error));
    },
  };
}

/** The realm every challenge names. */
const REALM = 'game-session-token-service';

/**
 * The `WWW-Authenticate` challenge of a 401 (RFC 9110 §11.6.1), naming the credential the route
 * takes, so that a client knows what to send. Key routes (REST and MCP) take an API key: the
 * `ApiKey` scheme, naming its header; an MCP client reading it asks its user for a key instead of
 * starting an OAuth flow (which a `Bearer` challenge would suggest). Admin routes take an OIDC JWT:
 * `Bearer` (RFC 6750), with `error="invalid_token"` when one was presented.
 */
function challenge(auth: 'apiKey' | 'bearer', headers: Readonly<Record<string, string | undefined>>): string {
  if (auth === 'apiKey') return `ApiKey realm="${REALM}", header="x-api-key"`;
  return headers.authorization ? `Bearer realm="${REALM}", error="invalid_token"` : `Bearer realm="${REALM}"`;
}

/** The presented key's 8-character prefix, the only part of it that may be logged. */
function keyPrefixOf(event: Event): string | undefined {
  const key = presentedApiKey(event.headers ?? {});
  return key ? key.slice(0, 8) : undefined;
}

/**
 * The API key a request presents: `x-api-key`, or else `Authorization: Bearer dpk_...` (what MCP
 * clients configure). A bearer value that is not an API key (an admin's JWT) is not one.
 */
export function presentedApiKey(headers: Readonly<Record<string, string | undefined>>): string | undefined {
  if (headers['x-api-key']) return headers['x-api-key'];
  const bearer = /^Bearer\s+(dpk_\S*)$/i.exec(headers.authorization ?? '');
  return bearer?.[1];
}

// --- The caller, from what the request carries

/**
 * A caller's request id is kept when it is 1 to 128 of these characters: enough for a UUID, a ULID
 * or a trace id, and nothing that could forge a log field or blow up a line.
 */
const REQUEST_ID_PATTERN = /^[A-Za-z0-9._-]{1,128}$/;

/**
 * The request id of a call: the caller's `X-Request-Id` when it is valid, otherwise the one API
 * Gateway (or the local front) gave the request.
 */
function requestIdOf(headers: Readonly<Record<string, string | undefined>>, generated: string): string {
  const chosen = headers[REQUEST_ID_HEADER];
  return chosen !== undefined && REQUEST_ID_PATTERN.test(chosen) ? chosen : generated;
}

/**
 * The header the edge's viewer-request function sets to the viewer's address (`event.viewer.ip`,
 * `infra/edge-rewrite.ts`), overwriting whatever a viewer sent. (CloudFront's own
 * `CloudFront-Viewer-Address` would need an origin request policy listing every header the service
 * reads, since a policy that forwards all viewer headers but Host cannot add CloudFront's.)
 */
export const VIEWER_ADDRESS_HEADER = 'x-viewer-address';

/**
 * The viewer's IP address from the edge's header (a bare address; `address:port` accepted too), or
 * undefined when it is absent or not an address. Call it only for a request the origin check
 * passed: anyone calling the API directly could send the header.
 */
export function viewerAddress(headers: Readonly<Record<string, string | undefined>>): string | undefined {
  const value = headers[VIEWER_ADDRESS_HEADER];
  if (!value) return undefined;
  if (isIP(value)) return value;
  const address = value.slice(0, value.lastIndexOf(':'));
  return isIP(address) ? address : undefined;
}
