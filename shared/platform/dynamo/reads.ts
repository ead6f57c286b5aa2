/**
 * Reads of many items, a Query's pages and a BatchGetItem's rounds, bounded by the request's
 * deadline (`shared/platform/time.ts`): after the first call, the next starts only while a call at its
 * worst ({@link worstCaseCallMs}) still ends before the deadline. A read that stops early says so
 * (`cut`); one whose caller must show it whole makes that a 503 ({@link whole}).
 */
import { BatchGetCommand, type DynamoDBDocumentClient, paginateQuery, type QueryCommandInput } from '@aws-sdk/lib-dynamodb';
import { Overloaded } from '../errors.js';
import { hasTimeFor, hasTimeForCall, worstCaseCallMs } from './client.js';

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
