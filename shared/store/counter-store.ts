import { GetCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import type { CounterStore, ReportBudgetStore } from '../domain/ports.js';
import type { CounterSlot, SlotCount } from '../domain/rate-limit.js';
import { TTL_ATTRIBUTE } from '../tables.js';
import { isConditionalFailure, oldItemOf, type StoreOptions } from './dynamo-client.js';

/** Attribute of a counter item holding the day's count (the minute's is `m<minute of day>`). */
const DAY_COUNT = 'day';

/** Rate-limit counter shards, id sequences and the report budgets as atomic counter items. */
export class DynamoCounterStore implements CounterStore, ReportBudgetStore {
  constructor(private readonly options: StoreOptions) {}

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
          // Both windows or neither: a call one window refuses is never counted in the other.
          ConditionExpression: '(attribute_not_exists(#d) OR #d < :dayLimit) AND (attribute_not_exists(#m) OR #m < :minuteLimit)',
          ExpressionAttributeNames: {
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
      const old = oldItemOf(error) ?? (await this.read(slot.counterKey));
      return { refusedBy: countOf(old, DAY_COUNT) >= slot.dayLimit ? 'day' : 'minute' };
    }
  }

  /**
   * The counter item, read after a refusal on a backend that does not return the old item with it
   * (the embedded dynalite ignores `ReturnValuesOnConditionCheckFailure`; DynamoDB honours it).
   */
  private async read(counterKey: string): Promise<Record<string, unknown> | undefined> {
    const { Item } = await this.options.client.send(
      new GetCommand({ TableName: this.options.tableName, Key: { pk: counterKey }, ConsistentRead: true }),
    );
    return Item;
  }

  /**
   * One item per org and minute (`reports#<org>#<minute>`): a conditional ADD, refused once the
   * minute holds `limit` (at most 30 counted a minute; refusals beyond are answered from memory by
   * `ReportBudget`, so the item never runs hot).
   */
  async takeReport(orgId: number, minuteMs: number, limit: number, ttl: number): Promise<boolean> {
    try {
      await this.options.client.send(
        new UpdateCommand({
          TableName: this.options.tableName,
          Key: { pk: `reports#${orgId}#${minuteMs}` },
          UpdateExpression: 'ADD #count :one SET #ttl = :ttl',
          ConditionExpression: 'attribute_not_exists(#count) OR #count < :limit',
          ExpressionAttributeNames: { '#count': 'count', '#ttl': TTL_ATTRIBUTE },
          ExpressionAttributeValues: { ':one': 1, ':limit': limit, ':ttl': ttl },
        }),
      );
      return true;
    } catch (error) {
      if (isConditionalFailure(error)) return false;
      throw error;
    }
  }

  async reserve(sequence: string, size: number): Promise<number> {
    const { Attributes } = await this.options.client.send(
      new UpdateCommand({
        TableName: this.options.tableName,
        Key: { pk: `seq#${sequence}` },
        UpdateExpression: 'ADD #count :size',
        ExpressionAttributeNames: { '#count': 'count' },
        ExpressionAttributeValues: { ':size': size },
        ReturnValues: 'UPDATED_NEW',
      }),
    );
    return Attributes!.count as number;
  }
}

/** A count attribute of an item, marshalled (`{N: "5"}`, as the low-level error carries it) or not. */
function countOf(item: Record<string, unknown> | undefined, field: string): number {
  const value = item?.[field];
  if (typeof value === 'number') return value;
  const n = (value as { N?: string } | undefined)?.N;
  return n === undefined ? 0 : Number(n);
}
