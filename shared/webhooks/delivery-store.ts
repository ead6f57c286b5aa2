/**
 * Deliveries in the webhooks table: one partition per endpoint (`DELIVERY#<webhook_id>`), sorted
 * by delivery id, whose ULID part is time-ordered, so a descending query lists an endpoint's
 * deliveries newest first, a page at a time, with no index. Each item expires 30 days after its
 * creation (TTL). Heat: an endpoint's partition takes a write per delivery and per attempt; the
 * delivery worker's per-endpoint places (`EndpointGate`) keep attempts far below a partition's
 * 1,000 writes a second.
 */
import { GetCommand, PutCommand, QueryCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { type StoreOptions, unlessRefused } from '../platform/dynamo/client.js';
import { DELIVERY_RETENTION_DAYS, MAX_ATTEMPT_ENTRIES, type AttemptEntry, type DeliveryRecord } from './delivery-model.js';
import type { DeliveryStore } from './ports.js';
import type { DeliveryProgress } from './schedule.js';

const DAY_SECONDS = 24 * 60 * 60;

const deliveryKey = (webhookId: number, id: string) => ({ pk: `DELIVERY#${webhookId}`, sk: id });

/** The fields of a delivery an attempt or a retry sets. */
const PROGRESS_FIELDS = ['status', 'attempts', 'last_status_code', 'last_attempt_at', 'next_attempt_at'] as const;

/** The DynamoDB adapter of {@link DeliveryStore}. */
export class DynamoDeliveryStore implements DeliveryStore {
  constructor(private readonly options: StoreOptions) {}

  async create(deliveries: readonly DeliveryRecord[]): Promise<void> {
    // Conditional puts side by side (a batch write can't be conditional): a delivery already stored
    // (its source read again) keeps its progress.
    await Promise.all(
      deliveries.map(async (delivery) => {
        const ttl = Math.floor(Date.parse(delivery.created_at) / 1000) + DELIVERY_RETENTION_DAYS * DAY_SECONDS;
        await unlessRefused(
          this.options.client.send(
            new PutCommand({
              TableName: this.options.tableName,
              Item: { ...deliveryKey(delivery.webhook_id, delivery.id), ...delivery, ttl },
              ConditionExpression: 'attribute_not_exists(pk)',
            }),
          ),
          () => undefined,
        );
      }),
    );
  }

  async find(webhookId: number, id: string): Promise<DeliveryRecord | undefined> {
    const { Item } = await this.options.client.send(
      new GetCommand({ TableName: this.options.tableName, Key: deliveryKey(webhookId, id), ConsistentRead: true }),
    );
    return Item ? toRecord(Item) : undefined;
  }

  async listByWebhook(webhookId: number, limit: number, cursor?: string): Promise<{ deliveries: DeliveryRecord[]; cursor: string | null }> {
    const { Items = [], LastEvaluatedKey } = await this.options.client.send(
      new QueryCommand({
        TableName: this.options.tableName,
        KeyConditionExpression: 'pk = :pk',
        ExpressionAttributeValues: { ':pk': `DELIVERY#${webhookId}` },
        ScanIndexForward: false,
        Limit: limit,
        ...(cursor === undefined ? {} : { ExclusiveStartKey: deliveryKey(webhookId, cursor) }),
      }),
    );
    const deliveries = Items.map(toRecord);
    return { deliveries, cursor: LastEvaluatedKey && deliveries.length > 0 ? deliveries[deliveries.length - 1]!.id : null };
  }

  async recordAttempt(
    delivery: Pick<DeliveryRecord, 'webhook_id' | 'id' | 'attempts' | 'attempt_log'>,
    progress: DeliveryProgress,
    entry: AttemptEntry,
  ): Promise<boolean> {
    const attempt_log = [...delivery.attempt_log, entry].slice(-MAX_ATTEMPT_ENTRIES);
    return unlessRefused(
      this.setProgress(delivery.webhook_id, delivery.id, progress, { attempt_log }, delivery.attempts).then(() => true),
      () => false,
    );
  }

  async markRetried(webhookId: number, id: string, progress: DeliveryProgress): Promise<DeliveryRecord | undefined> {
    const answer = await unlessRefused(this.setProgress(webhookId, id, progress, {}), () => undefined);
    return answer?.Attributes ? toRecord(answer.Attributes) : undefined;
  }

  /** Set a delivery's progress (and `extra`), while it exists and, when given, while it has `expectedAttempts`. */
  private setProgress(
    webhookId: number,
    id: string,
    progress: DeliveryProgress,
    extra: Record<string, unknown>,
    expectedAttempts?: number,
  ) {
    const fields = { ...pick(progress), ...extra };
    const names = Object.keys(fields);
    return this.options.client.send(
      new UpdateCommand({
        TableName: this.options.tableName,
        Key: deliveryKey(webhookId, id),
        UpdateExpression: `SET ${names.map((_, i) => `#f${i} = :v${i}`).join(', ')}`,
        ConditionExpression: expectedAttempts === undefined ? 'attribute_exists(pk)' : '#attempts = :expected',
        ExpressionAttributeNames: {
          ...Object.fromEntries(names.map((name, i) => [`#f${i}`, name])),
          ...(expectedAttempts === undefined ? {} : { '#attempts': 'attempts' }),
        },
        ExpressionAttributeValues: {
          ...Object.fromEntries(names.map((name, i) => [`:v${i}`, fields[name]])),
          ...(expectedAttempts === undefined ? {} : { ':expected': expectedAttempts }),
        },
        ReturnValues: 'ALL_NEW',
      }),
    );
  }
}

function pick(progress: DeliveryProgress): Record<string, unknown> {
  return Object.fromEntries(PROGRESS_FIELDS.map((field) => [field, progress[field]]));
}

function toRecord(item: Record<string, unknown>): DeliveryRecord {
  const { pk: _pk, sk: _sk, ttl: _ttl, ...record } = item;
  return record as unknown as DeliveryRecord;
}
