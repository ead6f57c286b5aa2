/**
 * THE middy bundle every JSON function uses. A function hands it its operation's declaration
 * (its feature's `routes/` module: credential, schemas, how it answers), its part of the services
 * and one async function from validated input to data. The bundle normalizes headers, caps and
 * parses the JSON body, checks the credential, validates, runs the operation, renders its answer
 * (`answers.ts`), adds rate-limit headers, maps every thrown error to its status and envelope, and
 * writes one log line and one set of metrics per request (`call-context.ts`). Operations that take
 * an API key use `keyApi` (`shared/keys/key-pipeline.ts`).
 */
import middy from '@middy/core';
import httpEventNormalizer from '@middy/http-event-normalizer';
import httpHeaderNormalizer from '@middy/http-header-normalizer';
import type { APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2, Context } from 'aws-lambda';
import type { AdminIdentity, BearerVerifier } from '../bearer.js';
import { Unauthenticated, type DomainError } from '../errors.js';
import { withinDeadline } from '../deadline.js';
import type { CallContext } from '../call.js';
import { API_PATH, type Answer, type RouteDefinition } from '../route.js';
import { jsonBody, queryCap, requestInput, type RequestInput } from './request-input.js';
import { originVerify, secretsLoaded } from '../secrets.js';
import { annotate } from '../observability.js';
import { presentedApiKey, respond } from './call-context.js';
import { responseOf } from './answers.js';

type Event = APIGatewayProxyEventV2;
type Result = APIGatewayProxyStructuredResultV2;
type Auth<D extends RouteDefinition, A extends RouteDefinition['auth']> = D['auth'] extends A ? true : false;

/** What the bundle itself takes from a function's services: the verifier of bearer routes (key routes: `keyApi`'s own, in the keys feature). */
type BundleNeeds<D extends RouteDefinition> = Auth<D, 'bearer'> extends true ? { readonly bearer: BearerVerifier } : unknown;

/** The Lambda context with this request's call context attached by the bundle. */
export interface ApiContext extends Context {
  call?: CallContext;
  /** The request's id as answered and logged: the caller's `X-Request-Id` when valid, else the call's (`call-context.ts`). */
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
  // Every DynamoDB call of the request ends before its deadline (`shared/platform/deadline.ts`).
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
