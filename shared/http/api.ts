/**
 * THE middy bundle every JSON function uses. A function hands it its operation's declaration
 * (`shared/operations/`: credential, schemas, how it answers), its part of the services and one
 * async function from validated input to data. The bundle normalizes headers, caps and parses the
 * JSON body, checks the credential, validates, runs the operation, renders its answer
 * (`response.ts`), adds rate-limit headers, maps every thrown error to its status and envelope, and
 * writes one log line per request. Operations that take an API key use `keyApi` (`api-key.ts`).
 */
import middy from '@middy/core';
import httpEventNormalizer from '@middy/http-event-normalizer';
import httpHeaderNormalizer from '@middy/http-header-normalizer';
import type { APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2, Context } from 'aws-lambda';
import type { BearerVerifier } from '../auth/jwt.js';
import type { AdminIdentity } from '../domain/admin-access.js';
import { Unauthenticated, type DomainError } from '../domain/errors.js';
import type { KeyCalls } from '../domain/key-calls.js';
import type { ApiKeyRecord, CallContext } from '../domain/model.js';
import { API_PATH, type RouteDefinition } from '../operations/operation.js';
import type { IdempotencyStore } from '../store/idempotency-store.js';
import { jsonBody } from './body.js';
import { rateLimitHeaders } from './envelope.js';
import { errorResponse, withRequestId } from './errors.js';
import { queryCap } from './limits.js';
import { REQUEST_ANSWERED, REQUEST_FAILED } from './log-messages.js';
import { logger } from './logger.js';
import { originVerify } from './origin-verify.js';
import { responseOf } from './response.js';
import { requestInput, type RequestInput } from './validation.js';

type Event = APIGatewayProxyEventV2;
type Result = APIGatewayProxyStructuredResultV2;
type Auth<D extends RouteDefinition, A extends RouteDefinition['auth']> = D['auth'] extends A ? true : false;

/** What the bundle itself takes from a function's services: the verifier of bearer routes, the key calls of key routes, the records of idempotent ones. */
export type BundleNeeds<D extends RouteDefinition> = (Auth<D, 'bearer'> extends true ? { readonly bearer: BearerVerifier } : unknown) &
  (Auth<D, 'apiKey'> extends true ? { readonly keyCalls: KeyCalls } : unknown) &
  (D extends { readonly idempotent: object } ? { readonly idempotency: IdempotencyStore<Result> } : unknown);

/** The Lambda context with this request's call context attached by the bundle. */
export interface ApiContext extends Context {
  call?: CallContext;
  /** The org admin a bearer route's token identifies (set before the body is parsed). */
  admin?: AdminIdentity;
  /**
   * Why the body was refused, on a key-authenticated route: kept until the key is authenticated, so
   * that a missing or invalid key is 401 whatever the body, and a valid key's 400 is counted.
   */
  bodyRefusal?: DomainError;
}

/** What an operation receives. */
export type OperationInput<D extends RouteDefinition, S, P> = RequestInput<D> & {
  readonly call: CallContext;
  /** The audit action of the call: the operation's name. */
  readonly action: D['operation'];
  /** The function's part of the services ({@link Wiring.services}). */
  readonly services: S;
  readonly event: Event;
} & (Auth<D, 'apiKey'> extends true
    ? {
        /** The authenticated API key. */
        readonly key: ApiKeyRecord;
        /** What {@link Wiring.prefetch} read alongside authentication. */
        readonly prefetched: Promise<P>;
      }
    : unknown) &
  (Auth<D, 'bearer'> extends true ? { readonly admin: AdminIdentity } : unknown);

/** How a function binds its operation to the code that serves it. */
export interface Wiring<D extends RouteDefinition, S, P> {
  /**
   * The part of the services the operation uses (`shared/compose/`): the function's bundle carries
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
 * v2) events (key operations: `keyApi`, in `api-key.ts`). The handler carries the declaration it
 * was built from (`operations`), which a test holds against the routes table.
 */
export function api<const D extends RouteDefinition, S = undefined, P = undefined>(
  operation: D,
  wiring: Wiring<D, S, P>,
  run: (input: OperationInput<D, S, P>) => Promise<unknown>,
) {
  if (operation.auth === 'apiKey') throw new Error(`operation ${operation.operation} takes an API key: wrap it with keyApi()`);
  const handler = bundle(operation, wiring).handler(async (event, context) => {
    const services = wiring.services?.() as S;
    wiring.guard?.(event, services);
    const base = { call: context.call!, action: operation.operation, services, event };
    const data = await run({ ...base, ...requestInput(operation, event), admin: context.admin } as never);
    return responseOf(operation.reply, base.call, { data });
  });
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
    .use(queryCap());
  if (operation.auth === 'bearer') chain.use(bearerAuth(operation, () => (wiring.services!() as { bearer: BearerVerifier }).bearer));
  // A key route's refused body waits for the key to be authenticated (`api-key.ts`).
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
  const finish = (request: middy.Request<Event, Result, Error, ApiContext>, response: Result): Result => {
    const call = request.context.call;
    const status = response.statusCode ?? 200;
    const headers = {
      ...(response.headers as Record<string, string>),
      ...rateLimitHeaders(call?.rateLimit),
      ...(status === 401 && auth && auth !== 'none' ? { 'www-authenticate': challenge(auth, request.event.headers ?? {}) } : {}),
    };
    const fields = {
      operation: typeof operation === 'function' ? operation(request.event) : operation.operation,
      status,
      request_id: call?.requestId,
      duration_ms: Date.now() - (started.get(request) ?? Date.now()),
      key_prefix: keyPrefixOf(request.event),
      actor: request.context.admin?.subject,
    };
    if (status >= 500) logger.error(REQUEST_FAILED, { ...fields, error: request.error ?? undefined });
    else logger.info(REQUEST_ANSWERED, fields);
    return withRequestId({ ...response, headers }, call?.requestId ?? '');
  };
  return {
    before: (request) => {
      started.set(request, Date.now());
      const { requestContext } = request.event;
      request.context.call = {
        requestId: requestContext.requestId,
        sourceIp: requestContext.http.sourceIp,
        userAgent: requestContext.http.userAgent ?? '',
      };
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
