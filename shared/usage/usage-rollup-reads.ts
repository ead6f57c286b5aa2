import type { RefusalCountRow, UsageRollupStore } from '../audit/index.js';
import { AUDIT_SHARDS } from '../audit/index.js';
import { KIND_LETTER } from '../audit/index.js';

/** The kind of each sort-key letter (the inverse of {@link KIND_LETTER}). */
const KIND_OF = Object.fromEntries(Object.entries(KIND_LETTER).map(([kind, letter]) => [letter, kind])) as Record<
  string,
  RefusalCountRow['kind']
>;
import { type StoreOptions, queryPages } from '../platform/dynamo/client.js';

/**
 * The usage report's read of the usage rollup (`shared/audit/audit-store.ts`): the range of days of
 * every rollup partition of the org, one query per partition, all at once, each paging on only
 * while the deadline leaves time (else `cut`).
 */
export class DynamoUsageRollupReader implements Pick<UsageRollupStore, 'refusalCounts'> {
  constructor(private readonly options: StoreOptions) {}

  async refusalCounts(orgId: number, from: string, to: string): Promise<{ rows: RefusalCountRow[]; cut?: boolean }> {
    const perShard = await Promise.all(
      Array.from({ length: AUDIT_SHARDS }, (_, shard) =>
        queryPages(this.options.client, {
          TableName: this.options.tableName,
          KeyConditionExpression: 'pk = :pk AND sk BETWEEN :from AND :to',
          ExpressionAttributeValues: { ':pk': `usage#${orgId}#${shard}`, ':from': from, ':to': `${to}#~` },
        }),
      ),
    );
    const rows = perShard
      .flatMap((shard) => shard.items)
      .map((item) => {
        const [day, letter, key, target] = (item.sk as string).split('#') as [string, string, string, string];
        const id = Number(target.slice(1));
        return {
          day,
          kind: KIND_OF[letter]!,
          key_id: Number(key),
          game_id: target.startsWith('g') ? id : null,
          stream_id: target.startsWith('s') ? id : null,
          count: item.count as number,
        };
      });
    return perShard.some((shard) => shard.cut) ? { rows, cut: true } : { rows };
  }
}
