/**
 * Who and which request a call is, and the middleware every bundle (JSON and HTML) puts first after
 * the normalizers to say so: the call context (request id, caller's address, user agent), the
 * answer's envelope headers (`nosniff`, rate limit, `WWW-Authenticate`, `x-request-id`), the error
 * mapping, and the request's line and metrics (`shared/platform/observability.ts`).
 * Named for what it sets up, the call context every later step reads; how an answer is rendered is
 * `answers.ts`.
 */
import { isIP } from 'node:net';
import type middy from '@middy/core';
import type { APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2 } from 'aws-lambda';
import type { RouteDefinition } from '../route.js';
import type { ApiContext } from './pipeline.js';
import { ANSWER_HEADERS, errorResponse, rateLimitHeaders, REQUEST_ID_HEADER, withRequestId } from './answers.js';
import { logRequest } from '../observability.js';

type Event = APIGatewayProxyEventV2;
type Result = APIGatewayProxyStructuredResultV2;
type Request = middy.Request<Event, Result, Error, ApiContext>;

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
