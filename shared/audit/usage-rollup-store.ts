import { UpdateCommand } from '@aws-sdk/lib-dynamodb';
import type { RefusalCountChange, RefusalKind, UsageRollupStore } from './ports.js';
import { TTL_ATTRIBUTE } from '../tables.js';
import { auditShard } from './audit-store.js';
import type { StoreOptions } from '../platform/dynamo/client.js';

/** An id as a fixed-width sort-key part. */
const pad = (id: number | null): string => String(id ?? 0).padStart(16, '0');

/** The sort key's letter of each kind. */
export const KIND_LETTER: Readonly<Record<RefusalKind, string>> = { forbidden: 'f', rate_limited: 'l' };

/**
 * The usage rollup in the audit table, beside the audit records it counts: one small counter item
 * per org, UTC day, kind, key, game or stream, and shard (`pk` = `usage#<org>#<shard>`, `sk` =
 * `<day>#<kind>#<key>#<target>`), added to as refused calls happen. The shard is the refused call's
 * audit shard (of its request id: a throttled audit write may move to the next shard, its count
 * does not), so a rollup partition takes about the writes of the audit partition beside it
 * (1,000 a second at most: shared/audit/audit-store.ts); a counter item is a few dozen bytes, so
 * each addition is one write unit. A report reads the range of days with one query per shard
 * (`usage-rollup-reads.ts`: apart, so that the functions that only count carry no paging code).
 * The sort key says everything but the count, so an item holds no attribute of an audit record's
 * (no `key_id`: a scan of the log for a key's records never meets it; the audit log's queries
 * never read `usage#` partitions). The items expire with the audit records of their day.
 */
export class DynamoUsageRollupStore implements Pick<UsageRollupStore, 'addRefusals'> {
  constructor(private readonly options: StoreOptions) {}

  async addRefusals(change: RefusalCountChange, ttl: number): Promise<void> {
    const target = change.game_id !== null ? `g${pad(change.game_id)}` : change.stream_id !== null ? `s${pad(change.stream_id)}` : 'n';
    await this.options.client.send(
      new UpdateCommand({
        TableName: this.options.tableName,
        Key: {
          pk: `usage#${change.org_id}#${auditShard(change.spread)}`,
          sk: `${change.day}#${KIND_LETTER[change.kind]}#${pad(change.key_id)}#${target}`,
        },
        // Not idempotent (an ADD repeated counts twice), so never retried after a lost answer (dynamo-client.ts).
        UpdateExpression: 'ADD #count :n SET #ttl = :ttl',
        ExpressionAttributeNames: { '#count': 'count', '#ttl': TTL_ATTRIBUTE },
        ExpressionAttributeValues: { ':n': change.count, ':ttl': ttl },
      }),
    );
  }
}
