/**
 * `Idempotency-Key` on key-authenticated operations (create-session): the header's rules, the gate
 * the bundle hands the operation when the header is present, and the replay of a stored answer.
 *
 * The claim on the key is written alongside authentication (same stage), the work runs only once
 * the key is known valid, and what is stored is the whole HTTP answer (status, envelope, rate-limit
 * headers). A replay still needs a valid key (a revoked key is 401, not a replay) but writes nothing:
 * no count, no token, no audit record. Stored: successes and refusals the request itself caused
 * (4xx); not stored: 429 (the retry may succeed later), 5xx (the retry runs again), and refusals of
 * the credential or the request's form, which happen before the claim matters.
 */
import type { APIGatewayProxyStructuredResultV2 } from 'aws-lambda';
import { InvalidInput, statusOf } from '../domain/errors.js';
import type { OnceGate } from '../domain/idempotency.js';
import type { CallContext } from '../domain/model.js';
import type { IdempotencyStore, IdempotentRequest } from '../store/idempotency-store.js';
import { jsonResponse, rateLimitHeaders } from './envelope.js';
import { errorResponse } from './errors.js';

type Result = APIGatewayProxyStructuredResultV2;

/** The header, as API Gateway and the local front hand it over (lower case). */
export const IDEMPOTENCY_HEADER = 'idempotency-key';
/** Header marking a stored answer given again. */
export const REPLAYED_HEADER = 'idempotent-replayed';

/** 1 to 255 printable ASCII characters. */
const KEY_PATTERN = /^[\x20-\x7e]{1,255}$/;

/**
 * The request's `Idempotency-Key`, or undefined when it has none.
 * @throws InvalidInput when it is present but empty, longer than 255 or not printable ASCII
 */
export function idempotencyKeyOf(headers: Readonly<Record<string, string | undefined>>): string | undefined {
  const value = headers[IDEMPOTENCY_HEADER];
  if (value === undefined) return undefined;
  if (!KEY_PATTERN.test(value)) throw new InvalidInput('Idempotency-Key: must be 1 to 255 printable ASCII characters');
  return value;
}

/** A stored answer, given again; thrown past the operation, which never sees it, and turned into the response by {@link replayable}. */
class StoredAnswer extends Error {
  constructor(readonly response: Result) {
    super('stored answer');
  }
}

/** Which calls of an operation are idempotent, and what a repeat must match. */
export interface IdempotentCall {
  /** The operation or tool the key belongs to. */
  readonly namespace: string;
  /** What a repeat must carry again (compared by hash). */
  readonly payload: unknown;
  /** Adapt a stored answer to the repeat (e.g. the JSON-RPC id of the new request). */
  readonly replay?: (stored: Result) => Result;
}

/** Whether an outcome is stored: successes and the request's own 4xx refusals, except 429. */
function stored(status: number): boolean {
  return status < 500 && status !== 429;
}

/**
 * The whole answer of a call as it will be stored: status, body and the call's rate-limit headers.
 * `raw`: the operation's data is the HTTP result itself (the MCP transport's), else it is enveloped.
 */
function answer(call: CallContext, raw: boolean, outcome: { data: unknown } | { error: unknown }): Result {
  const response =
    'error' in outcome ? errorResponse(outcome.error) : raw ? (outcome.data as Result) : jsonResponse(200, { data: outcome.data });
  return { ...response, headers: { ...(response.headers as Record<string, string>), ...rateLimitHeaders(call.rateLimit) } };
}

/**
 * `Idempotency-Key` handling of the HTTP bundle, over the records of one store. Built by the
 * idempotency part of the services (`shared/compose/idempotency.ts`), so only the functions that
 * accept the header carry it.
 */
export class IdempotentRequests {
  constructor(private readonly store: IdempotencyStore) {}

  /** The request's key ({@link idempotencyKeyOf}). */
  keyOf(headers: Readonly<Record<string, string | undefined>>): string | undefined {
    return idempotencyKeyOf(headers);
  }

  /**
   * The gate of a request with an `Idempotency-Key`: claims the key alongside authentication, runs the
   * work once, stores its answer, or answers with the stored one (via {@link IdempotentRequests.replayable}).
   */
  gate(
    request: IdempotentRequest,
    options: { readonly call: CallContext; readonly raw: boolean; readonly remainingMs: () => number },
  ): OnceGate {
    const { store } = this;
    const { call, raw, remainingMs } = options;
    return {
      run: async <T>(authenticated: Promise<unknown>, work: () => Promise<T>): Promise<T> => {
        let outcome: { data: T } | { error: unknown } | undefined;
        const once = store.once(request, remainingMs, async () => {
          // A call whose key is refused stores nothing: the error releases the claim.
          await authenticated;
          outcome = await work().then(
            (data) => ({ data }),
            (error: unknown) => ({ error }),
          );
          if ('error' in outcome && !stored(statusOf(outcome.error))) throw outcome.error;
          return answer(call, raw, outcome);
        });
        const [auth, result] = await Promise.allSettled([authenticated, once]);
        // The credential is judged first: a replay needs a valid key as much as a first call does.
        if (auth.status === 'rejected') throw auth.reason;
        if (result.status === 'rejected') throw result.reason;
        if (result.value.replayed || outcome === undefined) throw new StoredAnswer(result.value.value);
        if ('error' in outcome) throw outcome.error;
        return outcome.data;
      },
    };
  }

  /** An operation's result, or the stored answer its gate gave instead, marked `Idempotent-Replayed: true`. */
  async replayable<T>(
    result: Promise<T>,
    adapt: (stored: Result) => Result = (stored) => stored,
  ): Promise<{ data: T } | { replayed: Result }> {
    return result.then(
      (data) => ({ data }),
      (error: unknown) => {
        if (!(error instanceof StoredAnswer)) throw error;
        const response = adapt(error.response);
        const headers = { ...(response.headers as Record<string, string>), [REPLAYED_HEADER]: 'true' };
        return { replayed: { ...response, headers } };
      },
    );
  }
}
