import { errorStatus } from '../domain/errors.js';
import type { DayRecords, TokenReads, TokenReportStore } from '../domain/ports.js';
import type { StoreOptions } from './dynamo-client.js';
import { batchGetMany, queryPages } from './dynamo-reads.js';
import { AUDIT_SHARDS } from './audit-store.js';
import { toRecord } from './token-store.js';

/** Most refused calls' records one day's read keeps beside its tokens. */
const MAX_REFUSAL_RECORDS = 20_000;
/** How much later than its token a mint's audit record may be timed, at most. */
const RECORD_LAG_MS = 5_000;
/** Batches in flight at once: enough to read a month of a busy org quickly, few enough not to throttle. */
const BATCH_CONCURRENCY = 8;

/**
 * What the session report reads: the org's audit records of successful mints (they keep the whole
 * token) to find the tokens created on a day, and of refused key calls, then the tokens themselves in batches. Both reads are
 * eventually consistent: a report may miss the last second's changes, and it never competes with
 * the strong reads of the hot path. (A `by_org_day` index on the tokens did this before: it cost
 * every create an index write and put all of an org's creates of a day in one index partition.)
 */
export class DynamoTokenReportStore implements TokenReportStore {
  /** @param audit the audit table, which holds the mints' records */
  constructor(
    private readonly options: StoreOptions,
    private readonly audit: StoreOptions,
  ) {}

  async tokensCreatedOn(orgId: number, day: string, limit: number): Promise<string[]> {
    return (await this.recordsOn(orgId, day, limit)).tokens;
  }

  /**
   * The day's audit records of successful mints (their tokens) and of refused key calls (403, 429:
   * metered calls carry no actor), in one read: the query reads every record of the day's range
   * anyway (a filter only shortens the answer), so the refusals cost no read unit more.
   */
  async recordsOn(orgId: number, day: string, limit: number): Promise<DayRecords> {
    // A mint's record is timed a moment after its token (the call is metered after the token is
    // made): read a few seconds into the next day, and let the report place each token by its own
    // creation day (`shared/domain/reports.ts`); refusals it places by their own time.
    const next = new Date(Date.parse(`${day}T00:00:00.000Z`) + 86_400_000 + RECORD_LAG_MS).toISOString();
    const bound = limit + MAX_REFUSAL_RECORDS;
    const perShard = await Promise.all(
      Array.from({ length: AUDIT_SHARDS }, (_, shard) =>
        // Past the limit the report is cut short anyway: stop paging (and when the deadline leaves no time).
        queryPages(
          this.audit.client,
          {
            TableName: this.audit.tableName,
            KeyConditionExpression: 'pk = :pk AND sk BETWEEN :from AND :to',
            FilterExpression:
              '(attribute_exists(minted_token) AND #status = :ok) OR ' +
              '((#status = :forbidden OR #status = :limited) AND attribute_exists(key_id) AND (attribute_not_exists(actor) OR actor = :null))',
            ProjectionExpression: 'minted_token, key_id, #status, #at, game_id, stream_id',
            ExpressionAttributeNames: { '#status': 'status', '#at': 'at' },
            ExpressionAttributeValues: {
              ':pk': `${orgId}#${shard}`,
              ':from': day,
              ':to': next,
              ':ok': 200,
              ':forbidden': errorStatus.Forbidden,
              ':limited': errorStatus.RateLimited,
              ':null': null,
            },
          },
          bound,
        ),
      ),
    );
    const items = perShard.flatMap((shard) => shard.items);
    return {
      // A shard read that went past its bound, or ran out of time, stopped paging: its day may hold more records.
      cut: perShard.some((shard) => shard.cut),
      tokens: items.filter((item) => item.status === 200).map((item) => item.minted_token as string),
      // A refused mint's record keeps its (deleted) token too: the status tells them apart.
      refusals: items
        .filter((item) => item.status !== 200 && (item.at as string) < next.slice(0, 10))
        .map((item) => ({
          key_id: item.key_id as number,
          status: item.status as number,
          at: item.at as string,
          game_id: (item.game_id as number | null | undefined) ?? null,
          stream_id: (item.stream_id as number | null | undefined) ?? null,
        })),
    };
  }

  /**
   * The tokens in rounds of {@link BATCH_CONCURRENCY} batches ({@link batchGetMany}); a round starts
   * only while the request's deadline leaves time for its calls, else the read is cut (the report
   * says truncated). A token cleaned up meanwhile is simply absent.
   */
  async getMany(tokens: readonly string[]): Promise<TokenReads> {
    const keys = tokens.map((token) => ({ token }));
    const { items, cut } = await batchGetMany(this.options.client, this.options.tableName, keys, BATCH_CONCURRENCY);
    return { records: items.map(toRecord), cut };
  }
}
