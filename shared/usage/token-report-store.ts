import type { ReportedToken, TokenReportStore } from './ports.js';
import type { TokenReads } from './ports.js';
import { type StoreOptions, queryPages } from '../platform/dynamo/client.js';
import { REPORT_SHARDS } from '../sessions/index.js';

/** The tokens table's report index (shared/tables.ts). */
const REPORT_INDEX = 'by_org_created';

/**
 * What the session report reads of the tokens: the org's tokens of a range of creation days from
 * the report index, one query per index partition ({@link REPORT_SHARDS}), all at once, each paging
 * on only while the range has more (an index item is about 150 bytes: a 1 MB page holds thousands).
 * The index holds each token's status as DynamoDB last wrote it (consumed, revoked): no token is
 * read by itself. Eventually consistent, like every index: a report may miss the last second's
 * changes, and it never competes with the strong reads of the hot path. (Before, the report read
 * the mints' audit records, one query per audit shard and day, 248 for a month, then every token.)
 */
export class DynamoTokenReportStore implements TokenReportStore {
  constructor(private readonly options: StoreOptions) {}

  async tokensCreated(orgId: number, from: string, to: string, limit: number): Promise<TokenReads> {
    // Tokens spread evenly over the partitions (by their hash): each is read up to its share of the
    // limit and a quarter more, in one page (`Limit`), so a report is one query per partition
    // whatever the org's volume, and a cut report holds as much of every partition.
    const quota = Math.ceil((limit / REPORT_SHARDS) * 1.25);
    const perShard = await Promise.all(
      Array.from({ length: REPORT_SHARDS }, (_, shard) =>
        // Past the quota the report is cut short anyway: stop paging (and when the deadline leaves no time).
        queryPages(
          this.options.client,
          {
            TableName: this.options.tableName,
            IndexName: REPORT_INDEX,
            KeyConditionExpression: 'org_shard = :pk AND created_at BETWEEN :from AND :to',
            ExpressionAttributeValues: { ':pk': `${orgId}#${shard}`, ':from': from, ':to': `${to}T99` },
            Limit: quota + 1,
          },
          quota,
        ),
      ),
    );
    const total = perShard.reduce((sum, shard) => sum + shard.items.length, 0);
    // A partition stopped at its quota holds more; one stopped short of it ran out of time.
    const more = total > limit || perShard.some((shard) => shard.items.length > quota);
    const cut = perShard.some((shard) => shard.cut && shard.items.length <= quota);
    // Cut short: the same share of every partition (the earliest of each), never one partition's first.
    const share = Math.floor(limit / REPORT_SHARDS);
    const items = perShard.flatMap((shard) => (more ? shard.items.slice(0, share) : shard.items));
    return { records: items.map(toReported), ...(more && { more }), ...(cut && { cut }) };
  }
}

/** An index item as the report's token (what the index projects: shared/tables.ts). */
function toReported(item: Record<string, unknown>): ReportedToken {
  return {
    token: item.token as string,
    org_id: item.org_id as number,
    key_id: item.key_id as number,
    game_id: (item.game_id as number | null | undefined) ?? null,
    stream_id: (item.stream_id as number | null | undefined) ?? null,
    status: item.status as ReportedToken['status'],
    created_at: item.created_at as string,
    expires_at: item.expires_at as string,
  };
}
