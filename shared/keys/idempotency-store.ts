/**
 * Idempotency records in DynamoDB, kept by Powertools' idempotency utility (its
 * `DynamoDBPersistenceLayer`, on the service's own client), in three steps the caller takes in
 * order: {@link IdempotencyStore.claim} a key (a conditional put that succeeds when the key is new,
 * expired, or claimed by an invocation that timed out; else the stored answer is the result),
 * {@link IdempotencyStore.complete} it with the answer (kept 24 hours), or
 * {@link IdempotencyStore.release} it so that a retry runs again. Its refusals become the domain's
 * here: a claim still in progress is `Conflict`, the same key with another payload `Unprocessable`.
 */
import type { APIGatewayProxyStructuredResultV2 } from 'aws-lambda';
import { IdempotencyConfig } from '@aws-lambda-powertools/idempotency';
import { DynamoDBPersistenceLayer } from '@aws-lambda-powertools/idempotency/dynamodb';
import type { IdempotencyRecord } from '@aws-lambda-powertools/idempotency/persistence';
import { Conflict, Unprocessable } from '../platform/errors.js';
import { isTransient, type StoreOptions } from '../platform/dynamo/client.js';
import { coreServices, part } from '../platform/services.js';
import { required } from '../platform/env.js';

/** A record's data as Powertools takes it (JSON). */
type JSONValue = Parameters<DynamoDBPersistenceLayer['saveInProgress']>[0];

/** How long a stored answer is replayed (docs/decisions.md#idempotency: 24 hours). */
const IDEMPOTENCY_TTL_SECONDS = 24 * 3600;
/** Seconds a client should wait before retrying a request that is still in progress. */
const IN_PROGRESS_RETRY_SECONDS = 1;
/**
 * Claims tried when the record that refused one is gone or expired (Powertools retries twice too),
 * or when a claim's answer was lost (a timeout, a connection reset: it may have been written).
 */
const CLAIM_ATTEMPTS = 3;

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

/** The outcome of a claim: the key is this request's to run, or an earlier request's answer stands. */
export type Claim<T> = { readonly claimed: true } | { readonly claimed: false; readonly stored: T };

/** Idempotency records of the service (one table, every operation). */
export class IdempotencyStore<T> {
  private readonly persistence: DynamoDBPersistenceLayer;

  constructor(options: StoreOptions) {
    this.persistence = new DynamoDBPersistenceLayer({
      tableName: options.tableName,
      // The service's client: its retry policy, throttling translation and round-trip recording apply.
      awsSdkV3Client: options.client as unknown as ConstructorParameters<typeof DynamoDBPersistenceLayer>[0]['awsSdkV3Client'],
    });
    this.persistence.configure({
      // One prefix for every function: the namespace inside the hashed key keeps operations apart.
      keyPrefix: 'gsts',
      config: new IdempotencyConfig({
        eventKeyJmesPath: '[namespace, scope, key]',
        payloadValidationJmesPath: 'payload',
        throwOnNoIdempotencyKey: true,
        expiresAfterSeconds: IDEMPOTENCY_TTL_SECONDS,
        hashFunction: 'sha256',
      }),
    });
  }

  /**
   * Claim a request's key (one conditional put), or find the answer stored for it: the existing
   * record comes with the refusal (Powertools asks for it: `ReturnValuesOnConditionCheckFailure`),
   * so nothing is read.
   *
   * A claim whose answer was lost is made again (the client's retries leave it alone: a conditional
   * write): its condition makes the repeat harmless. It finds the stored answer (a replay), no
   * record (it claims), or the claim its first attempt may have written: in progress, a 409 whose
   * retry the client makes, never a second run of the request (docs/api.md#idempotent-retries).
   * @param remainingMs time left to this invocation: a claim older than that may be taken over
   * @throws Conflict while the first request is in progress; Unprocessable for the same key with another payload
   */
  async claim(request: IdempotentRequest, remainingMs: number): Promise<Claim<T>> {
    const data = request as unknown as JSONValue;
    for (let attempt = 1; ; attempt++) {
      try {
        await this.persistence.saveInProgress(data, remainingMs);
        return { claimed: true };
      } catch (error) {
        if (isTransient(error) && attempt < CLAIM_ATTEMPTS) continue;
        if (!isAlreadyClaimed(error)) throw error;
        const record = this.existing(data, error.existingRecord);
        // Gone (a refusal without the record, which DynamoDB never sends: it returns the item
        // whenever there is one) or expired: claim again.
        if ((record === undefined || record.getStatus() === 'EXPIRED') && attempt < CLAIM_ATTEMPTS) continue;
        if (record?.getStatus() !== 'COMPLETED') {
          throw new Conflict('A request with this Idempotency-Key is still in progress; retry shortly', IN_PROGRESS_RETRY_SECONDS, {
            cause: error,
          });
        }
        return { claimed: false, stored: record.getResponse() as T };
      }
    }
  }

  /** Store the answer of a claimed request: repeats get it for 24 hours. */
  async complete(request: IdempotentRequest, answer: T): Promise<void> {
    await this.persistence.saveSuccess(request as unknown as JSONValue, answer as unknown as JSONValue);
  }

  /** Give a claimed key up, storing nothing: a retry runs again. */
  async release(request: IdempotentRequest): Promise<void> {
    await this.persistence.deleteRecord(request as unknown as JSONValue);
  }

  /** The record that refused a claim, as the refusal returned it, its payload checked against this request's; undefined when it is gone. */
  private existing(data: JSONValue, returned: IdempotencyRecord | undefined): IdempotencyRecord | undefined {
    if (!returned) return undefined;
    try {
      return this.persistence.processExistingRecord(returned, data);
    } catch (error) {
      if ((error as { name?: string } | null)?.name === 'IdempotencyValidationError') {
        throw new Unprocessable('Idempotency-Key was already used with a different request body', { cause: error });
      }
      throw error;
    }
  }
}

/** Powertools' refusal of a claim, carrying the existing record the refusal returned. */
function isAlreadyClaimed(error: unknown): error is Error & { existingRecord?: IdempotencyRecord } {
  return (error as { name?: string } | null)?.name === 'IdempotencyItemAlreadyExistsError';
}

/** What an idempotent operation needs besides its own services. */
export interface IdempotencyServices {
  /** The records of `Idempotency-Key` calls; each holds the whole HTTP answer given to the first call. */
  readonly idempotency: IdempotencyStore<APIGatewayProxyStructuredResultV2>;
}

/** The `Idempotency-Key` records (Powertools' idempotency utility), for the functions that accept the header. */
export const idempotencyServices = /* @__PURE__ */ part((): IdempotencyServices => {
  const { client, env } = coreServices();
  return { idempotency: new IdempotencyStore({ client, tableName: required(env, 'IDEMPOTENCY_TABLE') }) };
});
