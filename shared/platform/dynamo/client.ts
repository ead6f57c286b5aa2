/**
 * The service's DynamoDB client (timeouts, retries, the request's deadline) and what its adapters
 * share: conditional-write refusals, and reads of many items bounded by the deadline (below).
 */
import { DynamoDBClient, type DynamoDBClientConfig } from '@aws-sdk/client-dynamodb';
import { BatchGetCommand, DynamoDBDocumentClient, paginateQuery, type QueryCommandInput } from '@aws-sdk/lib-dynamodb';
import { timeLeftMs } from '../time.js';
import { Overloaded } from '../errors.js';
import { METRIC, countEvent } from '../observability.js';

/** What every DynamoDB adapter's constructor takes. */
export interface StoreOptions {
  readonly client: DynamoDBDocumentClient;
  readonly tableName: string;
}

const THROTTLING = new Set(['ProvisionedThroughputExceededException', 'ThrottlingException', 'RequestLimitExceeded']);

/** Failures whose request may or may not have been applied: the answer, not the request, was lost. */
const TRANSIENT_NAMES = new Set(['TimeoutError', 'RequestTimeout', 'RequestTimeoutException', 'InternalServerError', 'ServiceUnavailable']);
const TRANSIENT_CODES = new Set([
  'EAGAIN',
  'ECONNRESET',
  'ECONNREFUSED',
  'EPIPE',
  'ETIMEDOUT',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'ENOTFOUND',
  'EAI_AGAIN',
]);
const TRANSIENT_STATUS = new Set([500, 502, 503, 504]);
/**
 * Connection failures before a byte of the request left: the listener refused it, or had no room
 * to queue it (a Unix socket's full backlog is EAGAIN), or is not there. Nothing was applied.
 */
const UNSENT_CODES = new Set(['EAGAIN', 'ECONNREFUSED', 'ENOENT']);

/** Commands that only read: repeating them is always harmless. */
const READS = new Set(['Get', 'GetItem', 'BatchGet', 'BatchGetItem', 'Query', 'Scan', 'TransactGet', 'TransactGetItems']);
/** Writes that are idempotent when they carry no condition: the same item put or deleted again. */
const PLAIN_OVERWRITES = new Set(['Put', 'PutItem', 'Delete', 'DeleteItem']);

/**
 * How the service retries DynamoDB calls (the SDK's own retries are off, because they repeat every
 * command on network errors and timeouts, which is wrong for conditional and counting writes): a
 * throttled call (refused, so not applied) is retried whatever it is, and so is one whose
 * connection failed before the request was sent ({@link isUnsent}); a call that failed without
 * an answer (network error, timeout, 5xx: it may have been applied) is retried only when repeating
 * it is harmless. Attempts are spaced by "full jitter" backoff.
 */
export const RETRY_POLICY = { maxAttempts: 3, baseDelayMs: 25, maxDelayMs: 400 } as const;

/**
 * How long one attempt may take in AWS: the TCP/TLS connection, then the answer (the socket idle
 * that long fails the attempt). DynamoDB answers in milliseconds; these only bound a hang. Together
 * with {@link RETRY_POLICY} they bound a call ({@link worstCaseCallMs}), which a unit test holds
 * against the function timeout.
 */
export const DYNAMO_TIMEOUTS = { connectionTimeoutMs: 200, requestTimeoutMs: 450 } as const;

/** The longest one attempt can take in AWS: it hangs to both timeouts. */
export const WORST_CASE_ATTEMPT_MS = DYNAMO_TIMEOUTS.connectionTimeoutMs + DYNAMO_TIMEOUTS.requestTimeoutMs;

// Computed once, not per call of a loop that pages or batches ({@link hasTimeForCall}).
const WORST_CASE_CALL_MS = (() => {
  let backoffs = 0;
  for (let n = 1; n < RETRY_POLICY.maxAttempts; n++) backoffs += backoffBoundMs(n);
  return RETRY_POLICY.maxAttempts * WORST_CASE_ATTEMPT_MS + backoffs;
})();

/**
 * The longest one DynamoDB call can take: every attempt hangs to both timeouts, and every backoff
 * waits its longest. A loop that pages or batches starts a call only with this much time left
 * before the request's deadline (`shared/platform/time.ts`), so that the call has its retries.
 */
export function worstCaseCallMs(): number {
  return WORST_CASE_CALL_MS;
}

/** The clients built with a {@link DynamoClientOptions.timeLeft} of their own, and it. */
const timeLeftOf = new WeakMap<object, () => number>();

/**
 * Whether the request's deadline (`shared/platform/time.ts`) leaves `ms` more for a call of
 * `client`, as the client reads the time left ({@link DynamoClientOptions.timeLeft}).
 */
export function hasTimeFor(client: object, ms: number): boolean {
  return (timeLeftOf.get(client) ?? timeLeftMs)() >= ms;
}

/** Whether the request's deadline leaves time for one more call of `client` at its worst ({@link worstCaseCallMs}). */
export function hasTimeForCall(client: object): boolean {
  return hasTimeFor(client, worstCaseCallMs());
}

/** Inputs of conditional writes marked {@link idempotent}; the SDK hands the same object to the middleware. */
const idempotentInputs = new WeakSet<object>();

/**
 * Mark a command input whose repetition is harmless although it is a conditional or updating write
 * (its condition accepts its own earlier application, or it only sets fixed values), so that a
 * failure without an answer may be retried.
 */
export function idempotent<T extends object>(input: T): T {
  idempotentInputs.add(input);
  return input;
}

/** The error was DynamoDB refusing the request for capacity: nothing was applied. */
export function isThrottling(error: unknown): boolean {
  return THROTTLING.has((error as { name?: string } | null)?.name ?? '');
}

/** The error left the request's outcome unknown (it may have been applied). */
export function isTransient(error: unknown): boolean {
  const e = error as { name?: string; code?: string; $metadata?: { httpStatusCode?: number } } | null;
  return (
    TRANSIENT_NAMES.has(e?.name ?? '') || TRANSIENT_CODES.has(e?.code ?? '') || TRANSIENT_STATUS.has(e?.$metadata?.httpStatusCode ?? 0)
  );
}

/**
 * Whether a command may be sent again after a failure that left its outcome unknown: reads, plain
 * puts and deletes without a condition, and inputs marked {@link idempotent}.
 */
export function isRetrySafe(commandName: string | undefined, input: unknown): boolean {
  const name = (commandName ?? '').replace(/Command$/, '');
  if (READS.has(name)) return true;
  if (typeof input === 'object' && input !== null && idempotentInputs.has(input)) return true;
  return PLAIN_OVERWRITES.has(name) && !(input as { ConditionExpression?: string } | null)?.ConditionExpression;
}

/** The connection failed before the request was sent (`connect` refused, or no room to queue it): nothing was applied. */
export function isUnsent(error: unknown): boolean {
  const e = error as { code?: string; syscall?: string } | null;
  return e?.syscall === 'connect' && UNSENT_CODES.has(e.code ?? '');
}

/**
 * Whether a failed attempt of a command may be repeated: a throttled or unsent one whatever it is
 * (nothing was applied), one that failed without an answer only when {@link isRetrySafe}.
 */
export function mayRetry(error: unknown, commandName: string | undefined, input: unknown): boolean {
  return isThrottling(error) || isUnsent(error) || (isTransient(error) && isRetrySafe(commandName, input));
}

/** The longest delay before attempt `attempt + 1`: exponential, capped. */
function backoffBoundMs(attempt: number): number {
  return Math.min(RETRY_POLICY.maxDelayMs, RETRY_POLICY.baseDelayMs * 2 ** (attempt - 1));
}

/** Delay before attempt `attempt + 1`: uniformly random up to its bound (full jitter). */
function backoffMs(attempt: number): number {
  return Math.random() * backoffBoundMs(attempt);
}

/** Name of a DynamoDB conditional-write failure. */
export function isConditionalFailure(error: unknown): boolean {
  return (error as { name?: string } | null)?.name === 'ConditionalCheckFailedException';
}

/**
 * `write`'s answer, or what `refused` makes of the error when DynamoDB refused the write's condition
 * (any other error is thrown): how an adapter turns a refused conditional write into a domain
 * result (`undefined`, `false`) or a domain error.
 */
export async function unlessRefused<T, R>(write: Promise<T>, refused: (error: unknown) => R): Promise<T | R> {
  try {
    return await write;
  } catch (error) {
    if (isConditionalFailure(error)) return refused(error);
    throw error;
  }
}

/**
 * The item as it was, which a refused conditional write (its error, or a transaction's cancellation
 * reason) sent back with `ReturnValuesOnConditionCheckFailure: 'ALL_OLD'`. DynamoDB sends it whenever
 * the item exists, so undefined (absent or empty) means there was no item: nothing is read instead.
 */
export function oldItemOf(error: unknown): Record<string, unknown> | undefined {
  const item = (error as { Item?: Record<string, unknown> } | null)?.Item;
  return item && Object.keys(item).length > 0 ? item : undefined;
}

/**
 * One scalar attribute of an item that came with a refusal ({@link oldItemOf}): the document client
 * does not unmarshall errors, so DynamoDB's wire form (`{ N: '7' }`) is read here; a plain value
 * passes as it is. Undefined when absent.
 */
export function wireAttribute(item: Record<string, unknown>, name: string): string | number | boolean | null | undefined {
  const value = item[name] as { S?: string; N?: string; BOOL?: boolean; NULL?: boolean } | string | number | boolean | null | undefined;
  if (value === null || typeof value !== 'object') return value;
  if (value.N !== undefined) return Number(value.N);
  if (value.NULL) return null;
  return value.S ?? value.BOOL;
}

/** Why a call was refused before its first attempt (the cause of its `Overloaded`, in the request's log line). */
const NO_TIME_LEFT = "no time left for a DynamoDB call before the request's deadline";

/** Where the service's client sends its calls: a region in AWS; locally the embedded DynamoDB. */
export interface DynamoClientOptions {
  /** The embedded DynamoDB's endpoint (local run, tests); absent in AWS. */
  readonly endpoint?: string | undefined;
  readonly region?: string;
  /** With an endpoint: what to sign with (DynamoDB Local keeps a database per access key id); fixed dummy ones by default. */
  readonly credentials?: { readonly accessKeyId: string; readonly secretAccessKey: string };
  /** With an endpoint: how requests travel (the local run's dynalite: over a Unix socket, `infra/local/dynamo.ts`). */
  readonly requestHandler?: DynamoDBClientConfig['requestHandler'];
  /**
   * How the client reads the milliseconds its request's deadline leaves: `timeLeftMs` of
   * `shared/platform/time.ts` by default. Whoever builds a client for a DynamoDB without
   * timeouts may give its own (`infra/local/dynamo.ts`: an emulator's calls have no deadline).
   */
  readonly timeLeft?: () => number;
}

/**
 * A document client for the service. `endpoint` points at the embedded DynamoDB locally. Calls are
 * retried by {@link RETRY_POLICY} (the SDK's own retries are off), in AWS a call that hangs fails
 * after `requestTimeout`, and throttling that outlasts the retries becomes the domain's `Overloaded`, so
 * every adapter and handler answers 503 with Retry-After instead of a bare 500. No attempt starts
 * that could end after the request's deadline (as `timeLeft` reads it): a call with no time for
 * even one attempt, or for the retry it needs, is `Overloaded` (503 with Retry-After).
 */
export function createDocumentClient(options: DynamoClientOptions = {}): DynamoDBDocumentClient {
  const client = DynamoDBDocumentClient.from(new DynamoDBClient(clientConfig(options)), {
    marshallOptions: { removeUndefinedValues: true },
  });
  client.middlewareStack.add(
    (next) => async (args) => {
      try {
        return await next(args);
      } catch (error) {
        if (isThrottling(error)) throw new Overloaded({ cause: error });
        throw error;
      }
    },
    { step: 'initialize', name: 'translateThrottling' },
  );
  // Inside the translation (lower priority runs later), so that it sees the SDK's own errors.
  client.middlewareStack.add(
    (next, context) => async (args) => {
      // No attempt that could end after the request's deadline: the function answers in time instead.
      if (!hasTimeFor(client, WORST_CASE_ATTEMPT_MS)) throw new Overloaded({ cause: new Error(NO_TIME_LEFT) });
      for (let attempt = 1; ; attempt++) {
        try {
          return await next(args);
        } catch (error) {
          // Counted per attempt, under the request's operation (`shared/platform/observability.ts`): capacity on-call can see before it is a 503.
          if (isThrottling(error)) countEvent(METRIC.dynamoThrottles);
          if (attempt >= RETRY_POLICY.maxAttempts || !mayRetry(error, context.commandName, args.input)) throw error;
          const delay = backoffMs(attempt);
          // A retry the deadline leaves no time for: the store is slow or throttling, so a 503 with Retry-After.
          if (!hasTimeFor(client, delay + WORST_CASE_ATTEMPT_MS)) throw new Overloaded({ cause: error });
          countEvent(METRIC.dynamoRetries);
          await new Promise((resolve) => setTimeout(resolve, delay));
        }
      }
    },
    { step: 'initialize', priority: 'low', name: 'retrySafely' },
  );
  if (options.timeLeft) timeLeftOf.set(client, options.timeLeft);
  return client;
}

/** The SDK client's settings: the embedded DynamoDB's endpoint locally, else the region with bounded timeouts. */
function clientConfig(options: DynamoClientOptions): DynamoDBClientConfig {
  return options.endpoint
    ? {
        maxAttempts: 1,
        endpoint: options.endpoint,
        region: options.region ?? 'local',
        credentials: options.credentials ?? { accessKeyId: 'local', secretAccessKey: 'local' },
        ...(options.requestHandler ? { requestHandler: options.requestHandler } : {}),
        // No timeouts against the embedded DynamoDB: it shares the process's event loop, so a wall
        // clock would measure the machine's load (a busy test run), not the store.
      }
    : {
        maxAttempts: 1,
        region: options.region ?? process.env.AWS_REGION,
        // A DynamoDB call answers in milliseconds; one that hangs must fail well inside the Lambda timeout.
        requestHandler: {
          connectionTimeout: DYNAMO_TIMEOUTS.connectionTimeoutMs,
          requestTimeout: DYNAMO_TIMEOUTS.requestTimeoutMs,
          throwOnRequestTimeout: true,
        },
      };
}

/** An id in a sort key, zero-padded so that keys sort as the ids do (`ORG#0000000000000012`). */
export function sortableId(id: number): string {
  return String(id).padStart(16, '0');
}

// --- Bounded reads

/*
 * Reads of many items, a Query's pages and a BatchGetItem's rounds, bounded by the request's
 * deadline (`shared/platform/time.ts`): after the first call, the next starts only while a call at
 * its worst ({@link worstCaseCallMs}) still ends before the deadline. A read that stops early says
 * so (`cut`); one whose caller must show it whole makes that a 503 ({@link whole}).
 */

/** What a bounded read found; `cut` when it stopped before the end (past its limit, or for lack of time). */
export interface BoundedRead {
  readonly items: Record<string, unknown>[];
  readonly cut: boolean;
}

/** Every item a Query matches: `Overloaded` (503) when the deadline leaves no time to read them all. */
export async function queryItems(client: DynamoDBDocumentClient, input: QueryCommandInput): Promise<Record<string, unknown>[]> {
  return whole(await queryPages(client, input));
}

/**
 * A Query's items, page after page (the SDK's paginator), stopping once more than `limit` items
 * were read (callers that cut a result short need not read the rest) or when the deadline leaves
 * no time for another page.
 */
export async function queryPages(client: DynamoDBDocumentClient, input: QueryCommandInput, limit = Infinity): Promise<BoundedRead> {
  const items: Record<string, unknown>[] = [];
  for await (const page of paginateQuery({ client }, input)) {
    items.push(...(page.Items ?? []));
    if (items.length > limit) return { items, cut: true };
    if (page.LastEvaluatedKey && !hasTimeForCall(client)) return { items, cut: true };
  }
  return { items, cut: false };
}

/** Retry rounds for the keys a BatchGetItem left unprocessed (backing off 100 ms, 200 ms, … 1.6 s). */
export const BATCH_GET_RETRY_ROUNDS = 5;

/**
 * One BatchGetItem of up to 100 keys of one table, retrying the keys DynamoDB left unprocessed
 * (it does under throttling) with exponential backoff, while the deadline leaves time for the
 * backoff and a call and for {@link BATCH_GET_RETRY_ROUNDS} rounds (else `cut`). An item absent
 * from the table is simply absent.
 */
export async function batchGetAll(
  client: DynamoDBDocumentClient,
  tableName: string,
  first: readonly Record<string, unknown>[],
  consistent = false,
): Promise<BoundedRead> {
  const items: Record<string, unknown>[] = [];
  let keys = [...first];
  for (let round = 0; keys.length > 0; round++) {
    // Keys still unprocessed after every round (sustained throttling): the read stops short, as for lack of time.
    if (round > BATCH_GET_RETRY_ROUNDS) return { items, cut: true };
    if (round > 0) {
      const backoff = 50 * 2 ** round;
      if (!hasTimeFor(client, backoff + worstCaseCallMs())) return { items, cut: true };
      await new Promise((done) => setTimeout(done, backoff));
    }
    const request = consistent ? { Keys: keys, ConsistentRead: true } : { Keys: keys };
    const { Responses, UnprocessedKeys } = await client.send(new BatchGetCommand({ RequestItems: { [tableName]: request } }));
    items.push(...(Responses?.[tableName] ?? []));
    keys = UnprocessedKeys?.[tableName]?.Keys ?? [];
  }
  return { items, cut: false };
}

/** BatchGetItem reads at most this many keys per call. */
const BATCH_GET_MAX_KEYS = 100;

/**
 * Many items of one table: BatchGetItems of up to 100 keys ({@link batchGetAll} each), in waves of
 * `concurrency` calls (Infinity: all at once). Each wave, the first included, starts only while the
 * deadline leaves time for a call at its worst, so that a caller showing what was read in time gets
 * a cut read rather than a refused call; the read stops at the first wave that was cut.
 */
export async function batchGetMany(
  client: DynamoDBDocumentClient,
  tableName: string,
  keys: readonly Record<string, unknown>[],
  concurrency: number,
  /** Strongly consistent reads (twice the units): what the read decides must not miss a write just made. */
  consistent = false,
): Promise<BoundedRead> {
  const batches: Record<string, unknown>[][] = [];
  for (let i = 0; i < keys.length; i += BATCH_GET_MAX_KEYS) batches.push(keys.slice(i, i + BATCH_GET_MAX_KEYS));
  const items: Record<string, unknown>[] = [];
  for (let i = 0; i < batches.length; i += concurrency) {
    if (!hasTimeForCall(client)) return { items, cut: true };
    const reads = await Promise.all(batches.slice(i, i + concurrency).map((batch) => batchGetAll(client, tableName, batch, consistent)));
    for (const read of reads) items.push(...read.items);
    if (reads.some((read) => read.cut)) return { items, cut: true };
  }
  return { items, cut: false };
}

/** The items of a read its caller shows as complete (a list): `Overloaded` (503) when the deadline cut it. */
export function whole(read: BoundedRead): Record<string, unknown>[] {
  if (read.cut) throw new Overloaded({ cause: new Error("no time left to read every item before the request's deadline") });
  return read.items;
}
