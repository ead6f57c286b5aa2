/**
 * Due items in the webhooks table: `DUE#<yyyy-mm-ddThh:mm>#<shard>` (the minute of `due_at`, and
 * one of {@link DUE_SHARDS} shards by a hash of the item's ref), sort key `<kind>#<ref>`, and the
 * sweep's watermark (`DUE#watermark`: the oldest minute not yet swept whole, `due-minutes.ts`). The
 * sweep (`webhook-due`, every minute) reads a minute in 16 small queries, never a scan, and deletes
 * what it handled 25 to a BatchWriteItem.
 *
 * Heat: sharded because a burst of new tokens expiring the same minute would otherwise heat one
 * partition: 16 shards take 16 × 1,000 writes a second, so a minute holds up to about 960,000 new
 * items (and as many deletes spread over the sweep) before a shard is throttled, where one partition
 * would throttle at 60,000. The watermark is one item written at most once a run (once a minute).
 * Each due item expires 2 days after it was due (TTL), handled or not.
 */
import { BatchWriteCommand, GetCommand, PutCommand } from '@aws-sdk/lib-dynamodb';
import { createHash } from 'node:crypto';
import { Overloaded } from '../platform/errors.js';
import { queryItems, unlessRefused, type StoreOptions } from '../platform/dynamo/client.js';
import { TTL_ATTRIBUTE } from '../tables.js';
import type { DueItem } from './delivery-model.js';
import { chunked, DUE_KEEP_MINUTES, MINUTE_MS } from './due-minutes.js';
import type { DueStore } from './ports.js';

/** Partitions per minute. */
const DUE_SHARDS = 16;

const KEEP_SECONDS = (DUE_KEEP_MINUTES * MINUTE_MS) / 1000;

/** BatchWriteItem takes at most 25 requests. */
const BATCH_WRITE_MAX = 25;

/** Rounds for the deletes a BatchWriteItem left unprocessed (it does under throttling), backing off 100 ms, 200 ms, … 1.6 s. */
const BATCH_WRITE_RETRY_ROUNDS = 5;

/** The key of the sweep's watermark. */
const WATERMARK_KEY = { pk: 'DUE#watermark', sk: 'watermark' } as const;

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

  async dueIn(minuteMs: number): Promise<DueItem[]> {
    const minute = minuteOf(minuteMs);
    const pages = await Promise.all(
      Array.from({ length: DUE_SHARDS }, (_, shard) =>
        queryItems(this.options.client, {
          TableName: this.options.tableName,
          KeyConditionExpression: 'pk = :pk',
          ExpressionAttributeValues: { ':pk': `DUE#${minute}#${shard}` },
          ConsistentRead: true,
        }),
      ),
    );
    return pages
      .flat()
      .map(toItem)
      .sort((a, b) => a.due_at.localeCompare(b.due_at));
  }

  async done(items: readonly DueItem[]): Promise<void> {
    // One batch at a time: the sweep hands a chunk of at most 100 (4 batches).
    for (const batch of chunked(items, BATCH_WRITE_MAX)) {
      let requests = batch.map((item) => ({ DeleteRequest: { Key: dueKey(item) } }));
      for (let round = 0; requests.length > 0; round++) {
        if (round > BATCH_WRITE_RETRY_ROUNDS) throw new Overloaded({ cause: new Error(`${requests.length} due items left undeleted`) });
        if (round > 0) await new Promise((done) => setTimeout(done, 50 * 2 ** round));
        const { UnprocessedItems } = await this.options.client.send(
          new BatchWriteCommand({ RequestItems: { [this.options.tableName]: requests } }),
        );
        requests = (UnprocessedItems?.[this.options.tableName] ?? []) as typeof requests;
      }
    }
  }

  async watermark(): Promise<number | undefined> {
    const { Item } = await this.options.client.send(
      new GetCommand({ TableName: this.options.tableName, Key: WATERMARK_KEY, ConsistentRead: true }),
    );
    return typeof Item?.minute_ms === 'number' ? Item.minute_ms : undefined;
  }

  async advanceWatermark(minuteMs: number): Promise<void> {
    // Forward only: a slower sweep running beside a later one never moves it back.
    await unlessRefused(
      this.options.client.send(
        new PutCommand({
          TableName: this.options.tableName,
          Item: { ...WATERMARK_KEY, minute_ms: minuteMs, minute: minuteOf(minuteMs) },
          ConditionExpression: 'attribute_not_exists(pk) OR minute_ms < :minute',
          ExpressionAttributeValues: { ':minute': minuteMs },
        }),
      ),
      () => undefined,
    );
  }
}

function toItem(raw: Record<string, unknown>): DueItem {
  return { kind: raw.kind as DueItem['kind'], org_id: raw.org_id as number, ref: raw.ref as string, due_at: raw.due_at as string };
}
