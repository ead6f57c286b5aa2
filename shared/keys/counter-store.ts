import { GetCommand, PutCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import type { CountedLayout, CounterLayoutStore, CounterStore, RateLimitNotice, RateNoticeStore } from './ports.js';
import type { CarriedCounts, CounterLayout, CounterSlot, SlotCount } from './rate-limit.js';
import { TTL_ATTRIBUTE } from '../tables.js';
import { isConditionalFailure, oldItemOf, type StoreOptions } from '../platform/dynamo/client.js';

/** Attribute of a counter item holding the day's count (the minute's is `m<minute of day>`). */
const DAY_COUNT = 'day';
/** Attribute of a counter item closed by a limit change: it counts nothing more (`CounterLayouts`, `rate-limit.ts`). */
const SEALED = 'sealed';
/** A minute's count attribute. */
const MINUTE_COUNT = /^m\d+$/;

/**
 * Tries, and the wait before the next one (ms, growing: 1.4 s in all), to take a sealed call back
 * from the next layout: the hand-over seals up to 64 items before it stores the layout.
 */
const UNCARRY_TRIES = 10;
const UNCARRY_WAIT_MS = 25;

/** The item holding a key's counter layout of a UTC day (absent: the day's first is in force). */
const layoutKey = (keyId: number, dayStart: number): string => `rate#${keyId}#${dayStart}#layout`;

/** Rate-limit counter shards and their layouts, and the notices of exhausted windows, as atomic counter items. */
export class DynamoCounterStore implements CounterStore, CounterLayoutStore, RateNoticeStore {
  constructor(private readonly options: StoreOptions) {}

  /**
   * `notice#<key_id>#<minute|day>#<window start>`: its first put makes the stream's INSERT, hence
   * one `key.rate_limited` (shared/webhooks/stream-events.ts); any later put for the same window
   * (another container learning it too) is refused and changes nothing. Kept a day past its window.
   */
  async notice(notice: RateLimitNotice): Promise<void> {
    try {
      await this.options.client.send(
        new PutCommand({
          TableName: this.options.tableName,
          Item: {
            pk: `notice#${notice.key_id}#${notice.window}#${notice.window_start}`,
            org_id: notice.org_id,
            key_id: notice.key_id,
            window: notice.window,
            limit: notice.limit,
            resets_at: notice.resets_at,
            at: notice.at,
            [TTL_ATTRIBUTE]: Math.ceil(Date.parse(notice.resets_at) / 1000) + 86_400,
          },
          ConditionExpression: 'attribute_not_exists(pk)',
        }),
      );
    } catch (error) {
      if (!isConditionalFailure(error)) throw error;
    }
  }

  async count(slot: CounterSlot): Promise<SlotCount> {
    const stale = slot.staleMinuteFields.map((_, i) => `#s${i}`);
    try {
      const { Attributes } = await this.options.client.send(
        new UpdateCommand({
          TableName: this.options.tableName,
          Key: { pk: slot.counterKey },
          UpdateExpression:
            'SET #d = if_not_exists(#d, :zero) + :one, #m = if_not_exists(#m, :zero) + :one, #ttl = :ttl' +
            (stale.length > 0 ? ` REMOVE ${stale.join(', ')}` : ''),
          // Both windows or neither: a call one window refuses is never counted in the other. A
          // sealed item belongs to a layout a limit change closed: what it holds was carried over.
          ConditionExpression:
            'attribute_not_exists(#sealed) AND (attribute_not_exists(#d) OR #d < :dayLimit) AND (attribute_not_exists(#m) OR #m < :minuteLimit)',
          ExpressionAttributeNames: {
            '#sealed': SEALED,
            '#d': DAY_COUNT,
            '#m': slot.minuteField,
            '#ttl': TTL_ATTRIBUTE,
            ...Object.fromEntries(slot.staleMinuteFields.map((field, i) => [`#s${i}`, field])),
          },
          ExpressionAttributeValues: {
            ':zero': 0,
            ':one': 1,
            ':dayLimit': slot.dayLimit,
            ':minuteLimit': slot.minuteLimit,
            ':ttl': slot.ttl,
          },
          ReturnValues: 'UPDATED_NEW',
          // DynamoDB answers a refusal with the item as it was: which window refused costs no read.
          ReturnValuesOnConditionCheckFailure: 'ALL_OLD',
        }),
      );
      return { minute: Attributes![slot.minuteField] as number, day: Attributes![DAY_COUNT] as number };
    } catch (error) {
      if (!isConditionalFailure(error)) throw error;
      // A missing item meets the condition, so a refusal always comes with the item. Were one to come
      // without it (DynamoDB never sends that), it counts as refused by the minute, the narrower window.
      const old = oldItemOf(error);
      if (old?.[SEALED] !== undefined) return { sealed: true };
      return { refusedBy: countOf(old, DAY_COUNT) >= slot.dayLimit ? 'day' : 'minute' };
    }
  }

  async uncount(slot: CounterSlot, layout: CountedLayout): Promise<void> {
    try {
      await this.options.client.send(
        new UpdateCommand({
          TableName: this.options.tableName,
          Key: { pk: slot.counterKey },
          UpdateExpression: 'ADD #d :minus, #m :minus',
          // The minute's count is gone once a later minute's call removed it as stale: then only the day's.
          ConditionExpression: 'attribute_not_exists(#sealed) AND attribute_exists(#m)',
          ExpressionAttributeNames: { '#d': DAY_COUNT, '#m': slot.minuteField, '#sealed': SEALED },
          ExpressionAttributeValues: { ':minus': -1 },
          ReturnValuesOnConditionCheckFailure: 'ALL_OLD',
        }),
      );
    } catch (error) {
      if (!isConditionalFailure(error)) throw error;
      if (oldItemOf(error)?.[SEALED] !== undefined) return this.uncarry(slot, layout);
      await this.options.client.send(
        new UpdateCommand({
          TableName: this.options.tableName,
          Key: { pk: slot.counterKey },
          UpdateExpression: 'ADD #d :minus',
          ConditionExpression: 'attribute_not_exists(#sealed)',
          ExpressionAttributeNames: { '#d': DAY_COUNT, '#sealed': SEALED },
          ExpressionAttributeValues: { ':minus': -1 },
        }),
      );
    }
  }

  /**
   * Take a call back from the counts a later layout carries (its shard was sealed after it counted).
   * The hand-over stores the new layout right after sealing: until it has, the decrement waits
   * (a few short tries); should it never appear, the call stays carried, which errs on the safe side.
   */
  private async uncarry(slot: CounterSlot, layout: CountedLayout): Promise<void> {
    for (let attempt = 0; attempt < UNCARRY_TRIES; attempt++) {
      try {
        await this.options.client.send(
          new UpdateCommand({
            TableName: this.options.tableName,
            Key: { pk: layoutKey(layout.keyId, layout.dayStart) },
            UpdateExpression: 'ADD carried_day :minus, carried_minutes.#m :minus',
            ConditionExpression: '#layout > :index',
            ExpressionAttributeNames: { '#layout': 'layout', '#m': slot.minuteField },
            ExpressionAttributeValues: { ':minus': -1, ':index': layout.index },
          }),
        );
        return;
      } catch (error) {
        if (!isConditionalFailure(error)) throw error;
        await new Promise((resolve) => setTimeout(resolve, UNCARRY_WAIT_MS * (attempt + 1)));
      }
    }
  }

  async layoutOf(keyId: number, dayStart: number): Promise<CounterLayout | undefined> {
    const item = await this.read(layoutKey(keyId, dayStart));
    if (!item) return undefined;
    return {
      index: item.layout as number,
      version: item.version as number,
      shards: item.shards as number,
      carried: { day: item.carried_day as number, minutes: (item.carried_minutes ?? {}) as Record<string, number> },
    };
  }

  async seal(counterKeys: readonly string[], ttl: number): Promise<CarriedCounts> {
    const items = await Promise.all(
      counterKeys.map(async (counterKey) => {
        const { Attributes } = await this.options.client.send(
          // Sets fixed values: repeating it (another container closing the same layout) is harmless.
          new UpdateCommand({
            TableName: this.options.tableName,
            Key: { pk: counterKey },
            UpdateExpression: 'SET #sealed = :true, #ttl = if_not_exists(#ttl, :ttl)',
            ExpressionAttributeNames: { '#sealed': SEALED, '#ttl': TTL_ATTRIBUTE },
            ExpressionAttributeValues: { ':true': true, ':ttl': ttl },
            ReturnValues: 'ALL_NEW',
          }),
        );
        return Attributes ?? {};
      }),
    );
    const minutes: Record<string, number> = {};
    let day = 0;
    for (const item of items) {
      day += countOf(item, DAY_COUNT);
      for (const field of Object.keys(item).filter((f) => MINUTE_COUNT.test(f)))
        minutes[field] = (minutes[field] ?? 0) + countOf(item, field);
    }
    return { day, minutes };
  }

  async replaceLayout(keyId: number, dayStart: number, next: CounterLayout, replaces: number, ttl: number): Promise<boolean> {
    try {
      await this.options.client.send(
        new PutCommand({
          TableName: this.options.tableName,
          Item: {
            pk: layoutKey(keyId, dayStart),
            layout: next.index,
            version: next.version,
            shards: next.shards,
            // Not `day` or `m<minute>`: the item counts no call of its own.
            carried_day: next.carried.day,
            carried_minutes: next.carried.minutes,
            [TTL_ATTRIBUTE]: ttl,
          },
          ConditionExpression: replaces === 0 ? 'attribute_not_exists(pk)' : '#layout = :replaces',
          ...(replaces === 0
            ? {}
            : { ExpressionAttributeNames: { '#layout': 'layout' }, ExpressionAttributeValues: { ':replaces': replaces } }),
        }),
      );
      return true;
    } catch (error) {
      if (isConditionalFailure(error)) return false;
      throw error;
    }
  }

  /** An item of the table, strongly consistent: a key's counter layout of a day. */
  private async read(pk: string): Promise<Record<string, unknown> | undefined> {
    const { Item } = await this.options.client.send(
      new GetCommand({ TableName: this.options.tableName, Key: { pk }, ConsistentRead: true }),
    );
    return Item;
  }
}

/** A count attribute of an item, marshalled (`{N: "5"}`, as the low-level error carries it) or not. */
function countOf(item: Record<string, unknown> | undefined, field: string): number {
  const value = item?.[field];
  if (typeof value === 'number') return value;
  const n = (value as { N?: string } | undefined)?.N;
  return n === undefined ? 0 : Number(n);
}
