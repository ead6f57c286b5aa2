/**
 * The bundle's path for operations that take an API key (REST and MCP), top-down:
 *
 * 1. the presented key's form (401 before anything else is looked at);
 * 2. the input (body, query, `Idempotency-Key`); a refused one is counted and audited once the key
 *    is authenticated, like any outcome of an authenticated call;
 * 3. one stage: the key's authentication (one strong read), the operation's prefetch (reads that
 *    need no key) and, for a key proven valid in this container, the `Idempotency-Key` claim (one
 *    conditional put); any other key's claim waits for its authentication (a stage more, once per
 *    key and container), so that a caller without a valid key writes nothing
 *    (docs/api.md#idempotent-retries, `shared/keys/known-keys.ts`). An operation that runs ahead
 *    (`RouteDefinition.ahead`: create-session) does more for such a key: its whole metered stage
 *    goes out with the key's read (`servedAhead`);
 * 4. a claim that finds a stored answer ends here: that answer, given again, is the response (a
 *    value; nothing is counted, minted or audited). A refused claim (409 in progress, 422 another
 *    body) is counted and audited like any call of the key (a 429 once it is out of quota).
 *    Otherwise the operation runs with the key, and its rendered answer is stored for repeats, or
 *    the claim released.
 *
 * A replay still needs a valid key (a revoked key is 401, not a replay). Stored: successes and
 * refusals the request itself caused (4xx); not stored: 429 (the retry may succeed later), 5xx (the
 * retry runs again), and refusals of the credential or the request's form, which come first.
 */
import type { APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2 } from 'aws-lambda';
import { Conflict, DomainError, InvalidInput, statusOf, Unprocessable } from '../platform/errors.js';
import { asFollowUp, withinDeadline } from '../platform/time.js';
import { keyCredential, type KeyCredential } from './credential.js';
import type { KeyCalls } from './key-calls.js';
import { AheadVerdict } from './known-keys.js';
import type { ApiKeyRecord } from './model.js';
import type { CallContext } from '../platform/call.js';
import type { Answer, IdempotentCall, RouteDefinition } from '../platform/route.js';
import type { Claim, IdempotencyStore, IdempotentRequest } from './idempotency-store.js';
import { bundle, type ApiContext, type OperationInput, type Wiring, requestInput } from '../platform/http/pipeline.js';
import { logger, annotate } from '../platform/observability.js';
import { presentedApiKey, REPLAYED_HEADER, outcomeOf, responseOf, type Outcome } from '../platform/http/answers.js';

type Event = APIGatewayProxyEventV2;
type Result = APIGatewayProxyStructuredResultV2;

/** The header, as API Gateway and the local front hand it over (lower case). */
const IDEMPOTENCY_HEADER = 'idempotency-key';
/** 1 to 255 printable ASCII characters. */
const IDEMPOTENCY_KEY_PATTERN = /^[\x20-\x7e]{1,255}$/;

/** What a key route's services hold for the bundle. */
interface KeyRouteServices {
  readonly keyCalls: KeyCalls;
  readonly idempotency?: IdempotencyStore<Result>;
}

/** A call under an `Idempotency-Key`: the record it claims, and how a stored answer is given again. */
type Claimed = {
  readonly request: IdempotentRequest;
  readonly replay: NonNullable<IdempotentCall['replay']>;
  /** The audit action of a refused claim (409, 422). */
  readonly action: string;
};

/** What a key route's services must hold: the key calls (which also count a refused input), and the records of an idempotent one. */
type KeyNeeds<D extends RouteDefinition> = { readonly keyCalls: KeyCalls } & (D extends { readonly idempotent: object }
  ? { readonly idempotency: IdempotencyStore<Result> }
  : unknown);

/** How a key route binds its operation to the code that serves it. */
export type KeyWiring<D extends RouteDefinition, S, P> = Wiring<D, S, P> & { readonly services: () => S & KeyNeeds<D> };

/** What a key route's operation receives: the request, and the authenticated key. */
export type KeyOperationInput<D extends RouteDefinition, S, P> = OperationInput<D, S> & {
  /** The authenticated API key. */
  readonly key: ApiKeyRecord;
  /** What {@link Wiring.prefetch} read alongside authentication. */
  readonly prefetched: Promise<P>;
};

/** What the bundle hands over: the call, its services and the event. */
interface CallBase {
  readonly call: CallContext;
  readonly action: string;
  readonly services: unknown;
  readonly event: Event;
}

/**
 * Wrap an operation that takes an API key into a Lambda handler for API Gateway HTTP API (payload
 * v2) events (steps 1 to 4 above). The handler carries the declaration it was built from
 * (`operations`), which a test holds against the routes table.
 */
export function keyApi<const D extends RouteDefinition & { readonly auth: 'apiKey' }, S, P = undefined>(
  operation: D,
  wiring: KeyWiring<D, S, P>,
  run: (input: KeyOperationInput<D, S, P>) => Promise<Answer<D>>,
) {
  // Every DynamoDB call of the request ends before its deadline (`shared/platform/time.ts`).
  const handler = bundle(operation, wiring).handler(
    withinDeadline(async (event: Event, context: ApiContext) => {
      const services = wiring.services!() as S;
      wiring.guard?.(event, services);
      const base = { call: context.call!, action: operation.operation, services, event };
      return serveKeyCall(operation, wiring as Wiring<RouteDefinition, unknown, unknown>, base, context, run as never);
    }),
  );
  return Object.assign(handler, { operations: [operation] as readonly D[] });
}

/** Serve a request of a key-authenticated operation (steps 1 to 4 above). */
async function serveKeyCall(
  operation: RouteDefinition,
  wiring: Wiring<RouteDefinition, unknown, unknown>,
  base: CallBase,
  context: ApiContext,
  run: (input: object) => Promise<unknown>,
): Promise<Result> {
  const { call, event } = base;
  const services = base.services as KeyRouteServices;
  const credential = keyCredential(presentedApiKey(event.headers));
  const input = await validated(operation, event, context, credential, services.keyCalls, call);
  const idempotent = input.idempotencyKey === undefined ? undefined : claimFor(operation, input.body, credential, input.idempotencyKey);
  const prefetched = wiring.prefetch?.(input, base.services) ?? Promise.resolve(undefined);
  // Awaited by the operation; if the request ends before (401, a replay), its failure must not go unhandled.
  prefetched.catch(() => undefined);
  const claimNow = () => services.idempotency!.claim(idempotent!.request, remainingMs(context));

  /** Run the operation with the key; store its answer under a claimed `Idempotency-Key` (or release the claim). */
  const serve = async (key: ApiKeyRecord, claimedHere: () => Promise<boolean>): Promise<Result> => {
    annotate(call, { org_id: key.org_id });
    const outcome = await outcomeOf(run({ ...base, ...input, key, prefetched }));
    // A call ahead of its key's read that the read or the claim overruled (its writes taken back).
    const overruled = (await services.keyCalls.unmetered(call, key)) ?? ('error' in outcome ? outcome.error : undefined);
    if (overruled instanceof AheadVerdict) throw overruled;
    // A stored refusal is answered, not thrown: its line still names why.
    if ('error' in outcome) context.refusal = outcome.error;
    // Not claimed here (no header, or a claim refused: 409, 422): nothing to store or release.
    if (!idempotent || !(await claimedHere())) {
      if ('error' in outcome) throw outcome.error;
      return responseOf(operation.reply, call, outcome);
    }
    return stored(services.idempotency!, idempotent.request, outcome, responseOf(operation.reply, call, outcome));
  };

  // A key this container last read valid runs ahead of its read (one stage), where the operation allows it.
  const provisional = runsAhead(operation, input.body) ? services.keyCalls.aheadKey(credential) : undefined;
  if (provisional) {
    const served = await servedAhead(provisional, services, credential, call, idempotent, claimNow, serve);
    if (served) return served;
  }
  // A key proven valid in this container claims beside its key read; any other claims once it is
  // authenticated, so that a caller without a valid key writes nothing (known-keys.ts).
  const early = idempotent && services.keyCalls.provisional(credential) ? claimNow() : undefined;
  const key = await authenticated(services, credential, idempotent, early);
  const claim = idempotent ? await claimed(early ?? claimNow(), services.keyCalls, key, call, idempotent.action) : undefined;
  if (claim && !claim.claimed) return replayed(idempotent!.replay(claim.stored));
  return serve(key, async () => true);
}

/** Whether this request's operation runs ahead of its key's read (`RouteDefinition.ahead`). */
function runsAhead(operation: RouteDefinition, body: unknown): boolean {
  return operation.ahead === true || (operation.ahead !== undefined && operation.ahead(body as never));
}

/**
 * Serve a call ahead of its key's read, with the key as this container last read it valid: the
 * read and the `Idempotency-Key` claim start, and the operation runs at once; its metering waits
 * for both beside its own writes (one stage: `KeyCalls.runAhead`). A refused key is its refusal
 * (401), a stored answer is given again. Undefined when the read found the key changed: its
 * metering took every speculative write back, the claim is released, and the call must be served
 * again on the slow path.
 */
async function servedAhead(
  provisional: ApiKeyRecord,
  services: KeyRouteServices,
  credential: KeyCredential,
  call: CallContext,
  idempotent: Claimed | undefined,
  claimNow: () => Promise<Claim<Result>>,
  serve: (key: ApiKeyRecord, claimedHere: () => Promise<boolean>) => Promise<Result>,
): Promise<Result | undefined> {
  const key = services.keyCalls.authenticate(credential);
  const claim = idempotent ? claimNow() : undefined;
  // Awaited by the metering; should the call end before it, neither may go unhandled.
  key.catch(() => undefined);
  claim?.catch(() => undefined);
  const claimedHere = async () =>
    claim
      ? claim.then(
          (c) => c.claimed,
          () => false,
        )
      : false;
  services.keyCalls.runAhead(call, { key, claim });
  try {
    return await serve(provisional, claimedHere);
  } catch (error) {
    if (!(error instanceof AheadVerdict)) throw error;
    const { verdict } = error;
    if (verdict.kind === 'replayed') return replayed(idempotent!.replay(verdict.stored as Result));
    // A refused key stores nothing, and a changed one claims again on the slow path.
    if (await claimedHere()) await release(services, idempotent!);
    if (verdict.kind === 'refused') throw verdict.refusal;
    return undefined;
  }
}

/**
 * The request's input, validated. When it is refused, the key is authenticated first (so that an
 * unknown, revoked or expired key is 401 whatever the body), and the refusal is then counted and
 * audited like any outcome of an authenticated call (docs/decisions.md#rate-limits: every call
 * authenticated by a key counts). A valid input costs nothing extra: its key is authenticated alongside the claim.
 */
async function validated(
  operation: RouteDefinition,
  event: Event,
  context: ApiContext,
  credential: KeyCredential,
  keyCalls: KeyCalls,
  call: CallContext,
) {
  try {
    if (context.bodyRefusal) throw context.bodyRefusal;
    const idempotencyKey = operation.idempotent ? idempotencyKeyOf(event.headers) : undefined;
    return { ...requestInput(operation, event), idempotencyKey };
  } catch (refusal) {
    if (!(refusal instanceof DomainError)) throw refusal;
    const key = await keyCalls.authenticate(credential);
    return keyCalls.meter(key, call, { action: operation.operation }, undefined, refusal);
  }
}

/**
 * The request's `Idempotency-Key`, or undefined when it has none.
 * @throws InvalidInput when it is present but empty, longer than 255 or not printable ASCII
 */
function idempotencyKeyOf(headers: Readonly<Record<string, string | undefined>>): string | undefined {
  const value = headers[IDEMPOTENCY_HEADER];
  if (value === undefined) return undefined;
  if (!IDEMPOTENCY_KEY_PATTERN.test(value))
    throw new InvalidInput('Idempotency-Key: must be 1 to 255 printable ASCII characters', { param: 'Idempotency-Key' });
  return value;
}

/** The record an idempotent call claims: per operation (or tool), API key and `Idempotency-Key`; undefined when the operation ignores the header for this call. */
function claimFor(operation: RouteDefinition, body: unknown, credential: KeyCredential, key: string): Claimed | undefined {
  const call: IdempotentCall | undefined =
    operation.idempotent === true ? { namespace: operation.operation, payload: body ?? null } : operation.idempotent?.(body as never);
  if (!call) return undefined;
  return {
    request: { namespace: call.namespace, scope: credential.keyHash, key, payload: call.payload },
    replay: call.replay ?? ((answer) => answer),
    action: call.action ?? operation.operation,
  };
}

/**
 * The key behind the credential, authenticated while an early claim is written (a key proven valid
 * here). The credential is judged first: a replay needs a valid key as much as a first call does,
 * and a key that fails gives its claim up again (nothing is stored: a key revoked since this
 * container last saw it valid writes and deletes one claim, then is forgotten).
 */
async function authenticated(
  services: KeyRouteServices,
  credential: KeyCredential,
  idempotent: Claimed | undefined,
  claiming: Promise<{ claimed: boolean }> | undefined,
): Promise<ApiKeyRecord> {
  const [key, claim] = await Promise.allSettled([services.keyCalls.authenticate(credential), claiming]);
  if (key.status === 'fulfilled') return key.value;
  if (claim.status === 'fulfilled' && claim.value?.claimed) await release(services, idempotent!);
  throw key.reason;
}

/** Give a claim up after its key was refused (or changed). The refusal stands whatever happens here; a claim left behind expires with this invocation. */
async function release(services: KeyRouteServices, idempotent: Claimed): Promise<void> {
  await services.idempotency!.release(idempotent.request).catch((error: unknown) => {
    logger.warn('idempotency claim not released after a refused key', { error: error as Error });
  });
}

/**
 * The claim's outcome. Its refusals (409 in progress, 422 another body) are calls of a valid key
 * like any other: counted and audited, so a key out of quota gets 429 for them instead
 * (docs/api.md#idempotent-retries).
 */
async function claimed(
  claiming: Promise<Claim<Result>>,
  keyCalls: KeyCalls,
  key: ApiKeyRecord,
  call: CallContext,
  action: string,
): Promise<Claim<Result>> {
  try {
    return await claiming;
  } catch (refusal) {
    if (!(refusal instanceof Conflict || refusal instanceof Unprocessable)) throw refusal;
    return keyCalls.meter(key, call, { action }, undefined, refusal);
  }
}

/** Store a claimed call's answer for repeats, or release the claim when the outcome is not kept (429, 5xx). */
async function stored(store: IdempotencyStore<Result>, request: IdempotentRequest, outcome: Outcome, answer: Result): Promise<Result> {
  // Follow-ups of an outcome already decided (a token may be minted): they get their attempt even at the deadline.
  if ('error' in outcome && !isStored(statusOf(outcome.error))) {
    await asFollowUp(() => store.release(request));
    throw outcome.error;
  }
  await asFollowUp(() => store.complete(request, answer));
  return answer;
}

/** Whether an outcome is stored: successes and the request's own 4xx refusals, except 429. */
function isStored(status: number): boolean {
  return status < 500 && status !== 429;
}

/** A stored answer given again, marked `Idempotent-Replayed: true`. */
function replayed(answer: Result): Result {
  return { ...answer, headers: { ...(answer.headers as Record<string, string>), [REPLAYED_HEADER]: 'true' } };
}

/** Time left to this invocation: a claim older than that may be taken over by a retry. */
function remainingMs(context: ApiContext): number {
  return context.getRemainingTimeInMillis?.() ?? 10_000;
}
