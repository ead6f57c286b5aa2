/**
 * Due items in the webhooks table: `DUE#<yyyy-mm-ddThh:mm>#<shard>` (the minute of `due_at`, and
 * one of {@link DUE_SHARDS} shards by a hash of the item's ref), sort key `<kind>#<ref>`. The
 * sweep (`webhook-due`, every minute) queries the partitions of the last
 * {@link DUE_LOOKBACK_MINUTES} minutes: a minute's items are read in 16 small queries, never a scan,
 * and a sweep that failed is caught up by the next ones. Sharded because a burst of new tokens
 * expiring the same minute would otherwise heat one partition. Each item expires 2 days after it
 * was due (TTL), handled or not.
 */
import { DeleteCommand, PutCommand } from '@aws-sdk/lib-dynamodb';
import { createHash } from 'node:crypto';
import { queryItems, type StoreOptions } from '../platform/dynamo/client.js';
import { TTL_ATTRIBUTE } from '../tables.js';
import type { DueItem } from './delivery-model.js';
import type { DueStore } from './ports.js';

/** Partitions per minute. */
const DUE_SHARDS = 16;
/** Minutes the sweep reads back, the current one included. */
const DUE_LOOKBACK_MINUTES = 5;

const MINUTE_MS = 60_000;
const KEEP_SECONDS = 2 * 24 * 60 * 60;

/** `yyyy-mm-ddThh:mm` of an epoch-ms time. */
const minuteOf = (ms: number): string => new Date(ms).toISOString().slice(0, 16);

/** The shard of a ref: the first 32 bits of its SHA-256, modulo the shards. */
function shardOf(ref: string): number {
  return createHash('sha256').update(ref).digest().readUInt32BE(0) % DUE_SHARDS;
}

/** The table key of a due item. */
function dueKey(item: DueItem): { pk: string; sk: string } {
  return { pk: `DUE#${minuteOf(Date.parse(item.due_at))}#${shardOf(item.ref)}`, sk: `${item.kind}#${item.ref}` };
}

/** The DynamoDB adapter of {@link DueStore}. */
export class DynamoDueStore implements DueStore {
  constructor(private readonly options: StoreOptions) {}

  async add(items: readonly DueItem[]): Promise<void> {
    // Plain puts: the same item put again (its record read twice) is the same item.
    await Promise.all(
      items.map((item) =>
        this.options.client.send(
          new PutCommand({
            TableName: this.options.tableName,
            Item: { ...dueKey(item), ...item, [TTL_ATTRIBUTE]: Math.floor(Date.parse(item.due_at) / 1000) + KEEP_SECONDS },
          }),
        ),
      ),
    );
  }

  async due(nowMs: number): Promise<DueItem[]> {
    const current = Math.floor(nowMs / MINUTE_MS) * MINUTE_MS;
    const partitions: string[] = [];
    for (let m = DUE_LOOKBACK_MINUTES - 1; m >= 0; m--) {
      for (let shard = 0; shard < DUE_SHARDS; shard++) partitions.push(`DUE#${minuteOf(current - m * MINUTE_MS)}#${shard}`);
    }
    const pages = await Promise.all(
      partitions.map((pk) =>
        queryItems(this.options.client, {
          TableName: this.options.tableName,
          KeyConditionExpression: 'pk = :pk',
          ExpressionAttributeValues: { ':pk': pk },
          ConsistentRead: true,
        }),
      ),
    );
    return pages
      .flat()
      .map(toItem)
      .filter((item) => Date.parse(item.due_at) <= nowMs)
      .sort((a, b) => a.due_at.localeCompare(b.due_at));
  }

  async done(item: DueItem): Promise<void> {
    await this.options.client.send(new DeleteCommand({ TableName: this.options.tableName, Key: dueKey(item) }));
  }
}

function toItem(raw: Record<string, unknown>): DueItem {
  return { kind: raw.kind as DueItem['kind'], org_id: raw.org_id as number, ref: raw.ref as string, due_at: raw.due_at as string };
}
