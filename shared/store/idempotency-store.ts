/**
 * Idempotency records in DynamoDB, kept by Powertools' idempotency utility (`makeIdempotent` over
 * its `DynamoDBPersistenceLayer`, on the service's own client): a conditional put claims a key (it
 * succeeds when the key is new, expired, or claimed by an invocation that timed out), the answer is
 * stored with a 24-hour expiry, and a failure deletes the claim so that a retry runs again. Its
 * errors become the domain's here: a claim still in progress is `Conflict`, the same key with
 * another payload is `Unprocessable`.
 */
import { IdempotencyConfig, makeIdempotent } from '@aws-lambda-powertools/idempotency';
import { DynamoDBPersistenceLayer } from '@aws-lambda-powertools/idempotency/dynamodb';
import type { Context } from 'aws-lambda';
import { Conflict, DomainError, Unprocessable } from '../domain/errors.js';
import type { StoreOptions } from './dynamo-client.js';

/** How long a stored answer is replayed (issue 9: 24 hours). */
export const IDEMPOTENCY_TTL_SECONDS = 24 * 3600;
/** Seconds a client should wait before retrying a request that is still in progress. */
export const IN_PROGRESS_RETRY_SECONDS = 1;

/** What identifies one idempotent request, and what must be the same when it is repeated. */
export interface IdempotentRequest {
  /** Operation (or MCP tool) the key belongs to: keys never collide across operations. */
  readonly namespace: string;
  /** Who the key belongs to: the SHA-256 of the API key (never the key itself). */
  readonly scope: string;
  /** The client's `Idempotency-Key`. */
  readonly key: string;
  /** The request as validated: a repeat must carry the same (compared by hash). */
  readonly payload: unknown;
}

/** The outcome of {@link IdempotencyStore.once}: the answer, and whether it was stored earlier. */
export interface OnceOutcome<T> {
  readonly value: T;
  readonly replayed: boolean;
}

/** Idempotency records of the service (one table, every operation). */
export class IdempotencyStore {
  private readonly persistence: DynamoDBPersistenceLayer;

  constructor(options: StoreOptions) {
    this.persistence = new DynamoDBPersistenceLayer({
      tableName: options.tableName,
      // The service's client: its retry policy, throttling translation and round-trip recording apply.
      awsSdkV3Client: options.client as unknown as ConstructorParameters<typeof DynamoDBPersistenceLayer>[0]['awsSdkV3Client'],
    });
  }

  /**
   * Run `work` at most once per (namespace, scope, key) within 24 hours and store what it returns;
   * a repeat with the same payload returns the stored value without running anything. When `work`
   * throws, nothing is stored and the claim is released (a retry runs again).
   * @param remainingMs time left to this invocation: a claim older than that is abandoned and may be taken over
   * @throws Conflict while the first request is in progress; Unprocessable for the same key with another payload
   */
  async once<T>(request: IdempotentRequest, remainingMs: () => number, work: () => Promise<T>): Promise<OnceOutcome<T>> {
    let ran = false;
    const guarded = makeIdempotent(
      async (_request: IdempotentRequest) => {
        ran = true;
        return work();
      },
      {
        persistenceStore: this.persistence,
        // One prefix for every function: the namespace inside the hashed key keeps operations apart.
        keyPrefix: 'gsts',
        // Per call: the remaining time belongs to this invocation (the local front runs many at once).
        config: new IdempotencyConfig({
          eventKeyJmesPath: '[namespace, scope, key]',
          payloadValidationJmesPath: 'payload',
          throwOnNoIdempotencyKey: true,
          expiresAfterSeconds: IDEMPOTENCY_TTL_SECONDS,
          hashFunction: 'sha256',
          lambdaContext: { getRemainingTimeInMillis: remainingMs } as Context,
        }),
      },
    );
    const value = (await guarded(request as never).catch((error: unknown) => {
      throw domainError(error);
    })) as T;
    return { value, replayed: !ran };
  }
}

/** Powertools' errors in the domain's terms; the work's own errors pass unchanged. */
function domainError(error: unknown): unknown {
  const name = (error as { name?: string } | null)?.name;
  if (name === 'IdempotencyAlreadyInProgressError') {
    return new Conflict('A request with this Idempotency-Key is still in progress; retry shortly', IN_PROGRESS_RETRY_SECONDS, {
      cause: error,
    });
  }
  if (name === 'IdempotencyValidationError') {
    return new Unprocessable('Idempotency-Key was already used with a different request body', { cause: error });
  }
  // A store failure Powertools wrapped: the database's own verdict (e.g. Overloaded: 503) counts.
  const cause = (error as { cause?: unknown } | null)?.cause;
  if (name === 'IdempotencyPersistenceLayerError' && cause instanceof DomainError) return cause;
  return error;
}
