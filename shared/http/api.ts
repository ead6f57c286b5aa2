/**
 * THE middy bundle every function uses. A function declares its operation (the credential it
 * takes comes from the routes table) and its zod schemas, and supplies one async function from
 * validated input to data. The bundle normalizes headers, caps and parses the JSON body, extracts
 * the credential, validates, wraps `{success: true, data}`, adds rate-limit headers, maps every
 * thrown error to its status and envelope, and writes one log line per request.
 */
import middy from '@middy/core';
import httpEventNormalizer from '@middy/http-event-normalizer';
import httpHeaderNormalizer from '@middy/http-header-normalizer';
import type { APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2, Context } from 'aws-lambda';
import type * as z from 'zod/v4/core';
import type { BearerServices } from '../compose/admin.js';
import type { IdempotencyServices } from '../compose/idempotency.js';
import type { SessionServices } from '../compose/sessions.js';
import type { AdminIdentity } from '../domain/admin-access.js';
import { DomainError } from '../domain/errors.js';
import { DIRECT, type OnceGate } from '../domain/idempotency.js';
import { keyCredential, type KeyCredential } from '../domain/key-calls.js';
import type { CallContext } from '../domain/model.js';
import { routes, type OperationName } from '../routes.js';
import { jsonResponse, rateLimitHeaders } from './envelope.js';
import { jsonBody } from './body.js';
import { errorResponse } from './errors.js';
import type { IdempotentCall } from './idempotency.js';
import { queryCap } from './limits.js';
import { REQUEST_ANSWERED, REQUEST_FAILED } from './log-messages.js';
import { logger } from './logger.js';
import { originVerify } from './origin-verify.js';
import { parseWith } from './validation.js';

type Event = APIGatewayProxyEventV2;
type Result = APIGatewayProxyStructuredResultV2;
type AuthOf<Op extends OperationName> = Extract<(typeof routes)[number], { operation: Op }>['auth'];
type Out<S> = S extends z.$ZodType ? z.output<S> : undefined;
/** How a key-authenticated operation's calls become idempotent (see {@link OperationSpec.idempotent}). */
type Idempotency<B> = true | ((body: Out<B>) => IdempotentCall | undefined);
/** What the bundle itself takes from an operation's services: the verifier of bearer routes, the key calls of key routes, the records of idempotent ones. */
type BundleNeeds<Op extends OperationName, I> = (AuthOf<Op> extends 'bearer' ? BearerServices : unknown) &
  (AuthOf<Op> extends 'apiKey' ? Pick<SessionServices, 'keyCalls'> : unknown) &
  (I extends undefined ? unknown : IdempotencyServices);

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
export type OperationInput<Op extends OperationName, B, Q, S> = {
  readonly body: B;
  readonly query: Q;
  readonly call: CallContext;
  /** The operation's part of the services ({@link OperationSpec.services}). */
  readonly services: S;
  readonly event: Event;
  /** How the operation's work follows its authentication: once per `Idempotency-Key` when one is sent. */
  readonly once: OnceGate;
} & (AuthOf<Op> extends 'apiKey' ? { readonly credential: KeyCredential } : unknown) &
  (AuthOf<Op> extends 'bearer' ? { readonly admin: AdminIdentity } : unknown);

/** An operation's declaration. */
export interface OperationSpec<Op extends OperationName, B, Q, S, I extends Idempotency<B> | undefined> {
  readonly operation: Op;
  /**
   * The part of the services the operation uses (`shared/compose/`): the function's bundle carries
   * only that part's code. Required for bearer routes (the verifier), key routes (the key calls, which
   * count a refused input) and idempotent operations.
   */
  readonly services?: () => S & BundleNeeds<Op, I>;
  /** Schema of the JSON body; when set, a body is required and parsed. */
  readonly body?: B;
  /** Schema of the query string parameters. */
  readonly query?: Q;
  /** false: answer the data itself as JSON, without the envelope (documents such as the OpenAPI one). */
  readonly envelope?: boolean;
  /** true: the operation returns the whole HTTP result (status, headers, body) itself: the MCP transport's. */
  readonly raw?: boolean;
  /**
   * An `Idempotency-Key` header makes the call idempotent per API key (key-authenticated operations):
   * true for every call (the validated body is what a repeat must match), or a function choosing the
   * calls it applies to (undefined: the header is ignored) and what a repeat must match.
   */
  readonly idempotent?: I;
  /**
   * A check of the request itself, before its credential is looked at (the MCP endpoint's browser
   * `Origin` allow-list): what it throws is the answer.
   */
  readonly guard?: (event: Event, services: S) => void;
}

/** Wrap an operation into a Lambda handler for API Gateway HTTP API (payload v2) events. */
export function api<
  Op extends OperationName,
  B extends z.$ZodType | undefined = undefined,
  Q extends z.$ZodType | undefined = undefined,
  S = undefined,
  I extends Idempotency<B> | undefined = undefined,
>(spec: OperationSpec<Op, B, Q, S, I>, operation: (input: OperationInput<Op, Out<B>, Out<Q>, S>) => Promise<unknown>) {
  const route = routes.find((r) => r.operation === spec.operation)!;
  // The types demand the services where the bundle needs them; this catches a spec that omits them (at load).
  if ((route.auth !== 'none' || spec.idempotent) && !spec.services) {
    throw new Error(`operation ${spec.operation} needs its services (a bearer verifier, key calls or idempotency records)`);
  }
  const needs = spec.services as (() => Partial<BearerServices & IdempotencyServices & Pick<SessionServices, 'keyCalls'>>) | undefined;
  const chain = middy<Event, Result, Error, ApiContext>()
    .use(httpHeaderNormalizer())
    .use(httpEventNormalizer())
    .use(respond(spec.operation))
    .use(originVerify())
    .use(queryCap());
  if (route.auth === 'bearer') chain.use(bearerAuth(() => needs!().bearer!));
  if (spec.body) chain.use(jsonBody(route.auth === 'apiKey'));

  return chain.handler(async (event, context) => {
    const call = context.call!;
    spec.guard?.(event, spec.services!());
    // The credential is checked before the input: a caller without one learns nothing else.
    const credential = route.auth === 'apiKey' ? keyCredential(presentedApiKey(event.headers)) : undefined;
    const requests = spec.idempotent && credential ? needs!().idempotency! : undefined;
    const parsed = () => {
      if (context.bodyRefusal) throw context.bodyRefusal;
      const idempotencyKey = requests?.keyOf(event.headers);
      const body = spec.body ? parseWith(spec.body, event.body, 'body') : undefined;
      const query = spec.query ? parseWith(spec.query, event.queryStringParameters ?? {}, 'query') : undefined;
      return { idempotencyKey, body, query };
    };
    // A key's input is validated once the key is authenticated; its refusal is counted and audited.
    const { idempotencyKey, body, query } = credential
      ? await afterAuthentication(parsed, credential, spec.operation, call, needs!)
      : parsed();
    const idempotent: IdempotentCall | undefined =
      idempotencyKey === undefined
        ? undefined
        : spec.idempotent === true
          ? { namespace: spec.operation, payload: body ?? null }
          : spec.idempotent?.(body as Out<B>);
    const input = {
      body,
      query,
      call,
      services: spec.services?.(),
      event,
      credential,
      admin: context.admin,
      // Without the header the call runs exactly as before: no idempotency round trip at all.
      once:
        idempotent === undefined
          ? DIRECT
          : requests!.gate(
              { namespace: idempotent.namespace, scope: credential!.keyHash, key: idempotencyKey!, payload: idempotent.payload },
              { call, raw: spec.raw === true, remainingMs: () => context.getRemainingTimeInMillis?.() ?? 10_000 },
            ),
    };
    const result = operation(input as OperationInput<Op, Out<B>, Out<Q>, S>);
    const outcome = requests ? await requests.replayable(result, idempotent?.replay) : { data: await result };
    if ('replayed' in outcome) return outcome.replayed;
    const data = outcome.data;
    if (spec.raw) return data as Result;
    return spec.envelope === false ? documentResponse(data) : jsonResponse(200, { data });
  });
}

/**
 * Validate a key-authenticated call's input. When it is refused, the key is authenticated first (so
 * that an unknown, revoked or expired key is 401 whatever the body), and the refusal is then counted
 * and audited like any outcome of an authenticated call (docs/decisions.md#rate-limits: every call
 * authenticated by a key counts). A valid input costs nothing extra: its key is authenticated by
 * the operation itself, alongside its first read.
 */
async function afterAuthentication<T>(
  parse: () => T,
  credential: KeyCredential,
  operation: OperationName,
  call: CallContext,
  services: () => Partial<Pick<SessionServices, 'keyCalls'>>,
): Promise<T> {
  try {
    return parse();
  } catch (refusal) {
    if (!(refusal instanceof DomainError)) throw refusal;
    const { keyCalls } = services();
    const key = await keyCalls!.authenticate(credential);
    return keyCalls!.meter(key, call, { action: operation }, undefined, refusal);
  }
}

/**
 * Verify the admin's bearer token first, before the body is even parsed: a caller without a valid
 * token learns nothing else. Who they may act for is the domain's question (catalog membership).
 */
function bearerAuth(bearer: () => BearerServices['bearer']): middy.MiddlewareObj<Event, Result, Error, ApiContext> {
  return {
    before: async ({ event, context }) => {
      context.admin = await bearer().verify(event.headers.authorization);
    },
  };
}

/** A JSON document served as it is (no envelope); it changes only with a deployment. */
function documentResponse(document: unknown): Result {
  return {
    statusCode: 200,
    headers: { 'content-type': 'application/json; charset=utf-8', 'cache-control': 'public, max-age=300' },
    body: JSON.stringify(document),
  };
}

/**
 * Call context, envelope headers, error mapping and the request's log line. The HTML page bundle
 * reuses it with its own error renderer and an operation read from the event.
 */
export function respond(
  operation: OperationName | ((event: Event) => string),
  renderError: (error: unknown) => Result = errorResponse,
): middy.MiddlewareObj<Event, Result, Error, ApiContext> {
  const started = new WeakMap<object, number>();
  const auth = typeof operation === 'string' ? routes.find((r) => r.operation === operation)?.auth : undefined;
  const finish = (request: middy.Request<Event, Result, Error, ApiContext>, response: Result): Result => {
    const call = request.context.call;
    const status = response.statusCode ?? 200;
    const headers = {
      ...(response.headers as Record<string, string>),
      ...rateLimitHeaders(call?.rateLimit),
      ...(status === 401 && auth && auth !== 'none' ? { 'www-authenticate': challenge(auth, request.event.headers ?? {}) } : {}),
      'x-request-id': call?.requestId ?? '',
    };
    const fields = {
      operation: typeof operation === 'function' ? operation(request.event) : operation,
      status,
      request_id: call?.requestId,
      duration_ms: Date.now() - (started.get(request) ?? Date.now()),
      key_prefix: keyPrefixOf(request.event),
      actor: request.context.admin?.subject,
    };
    if (status >= 500) logger.error(REQUEST_FAILED, { ...fields, error: request.error ?? undefined });
    else logger.info(REQUEST_ANSWERED, fields);
    return { ...response, headers };
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
export function challenge(auth: 'apiKey' | 'bearer', headers: Readonly<Record<string, string | undefined>>): string {
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
