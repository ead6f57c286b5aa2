/**
 * Deliveries in the webhooks table: one partition per endpoint (`DELIVERY#<webhook_id>`), sorted
 * by delivery id, whose ULID part is time-ordered, so a descending query lists an endpoint's
 * deliveries newest first, a page at a time, with no index. Each item expires 30 days after its
 * creation (TTL). Heat: an endpoint's partition takes a write per delivery and per attempt; the
 * delivery worker's per-endpoint places (`EndpointGate`) keep attempts far below a partition's
 * 1,000 writes a second.
 */
import { GetCommand, PutCommand, QueryCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { idempotent, oldItemOf, type StoreOptions, unlessRefused } from '../platform/dynamo/client.js';
import { DeliveryAttemptPending } from '../platform/errors.js';
import { isoTime } from '../platform/time.js';
import { DELIVERY_RETENTION_DAYS, MAX_ATTEMPT_ENTRIES, type AttemptEntry, type DeliveryRecord } from './delivery-model.js';
import type { DeliveryStore } from './ports.js';
import { deliveryNotFound } from './refusals.js';
import { STUCK_AFTER_MS, type DeliveryProgress } from './schedule.js';

const DAY_SECONDS = 24 * 60 * 60;

const deliveryKey = (webhookId: number, id: string) => ({ pk: `DELIVERY#${webhookId}`, sk: id });

/** No attempt holds the delivery: no claim, or one whose lease has ended (`:now`, `#until`). */
const NO_LIVE_CLAIM = '(attribute_not_exists(#until) OR #until <= :now)';

/** The delivery's key and the attempt count it was read with. */
type DeliveryRef = Pick<DeliveryRecord, 'webhook_id' | 'id' | 'attempts'>;

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

  async listRange(
    webhookId: number,
    range: { readonly from: string; readonly to: string },
    limit: number,
    after?: string,
  ): Promise<{ deliveries: DeliveryRecord[]; cursor: string | null }> {
    const { Items = [], LastEvaluatedKey } = await this.options.client.send(
      new QueryCommand({
        TableName: this.options.tableName,
        KeyConditionExpression: 'pk = :pk AND sk BETWEEN :from AND :to',
        ExpressionAttributeValues: { ':pk': `DELIVERY#${webhookId}`, ':from': range.from, ':to': range.to },
        Limit: limit,
        ...(after === undefined ? {} : { ExclusiveStartKey: deliveryKey(webhookId, after) }),
      }),
    );
    const deliveries = Items.map(toRecord);
    return { deliveries, cursor: LastEvaluatedKey && deliveries.length > 0 ? deliveries[deliveries.length - 1]!.id : null };
  }

  async claim(delivery: DeliveryRef, lease: string, nowMs: number, untilMs: number, recovering = false): Promise<boolean> {
    return unlessRefused(
      this.options.client
        .send(
          new UpdateCommand(
            // Its own earlier application (an answer lost, a retry) holds the claim already: safe to repeat.
            idempotent({
              TableName: this.options.tableName,
              Key: deliveryKey(delivery.webhook_id, delivery.id),
              UpdateExpression: 'SET #claim = :lease, #until = :until',
              // Only a delivery still waiting for this attempt (a succeeded one has moved its count on; an
              // exhausted one with the same count was ended unsent), and no live claim of another copy. A
              // recovery's attempt may take any but a succeeded one.
              ConditionExpression: `(#attempts = :seen AND #status IN (${recovering ? ':pending, :failed, :exhausted, :skipped' : ':pending, :failed'}) AND ${NO_LIVE_CLAIM}) OR #claim = :lease`,
              ExpressionAttributeNames: { '#claim': 'claim_id', '#until': 'claim_until', '#attempts': 'attempts', '#status': 'status' },
              ExpressionAttributeValues: {
                ':lease': lease,
                ':until': untilMs,
                ':now': nowMs,
                ':seen': delivery.attempts,
                ':pending': 'pending',
                ':failed': 'failed',
                ...(recovering && { ':exhausted': 'exhausted', ':skipped': 'skipped' }),
              },
            }),
          ),
        )
        .then(() => true),
      () => false,
    );
  }

  async recordAttempt(
    delivery: DeliveryRef & Pick<DeliveryRecord, 'attempt_log'>,
    lease: string,
    progress: DeliveryProgress,
    entry: AttemptEntry,
  ): Promise<boolean> {
    // The holder alone records: its claim was taken at the count it read, and nobody else may change
    // the count while the claim holds (a hand retry and an unsent end both wait for it to end). The
    // record names the claim it ends (`recorded_claim`), so its own earlier application (an answer
    // lost) passes the condition too: the write may be repeated, and the POST it records is never
    // left out of the log for a lost answer.
    return this.record(delivery, progress, entry, {
      condition: '#claim = :lease OR #recorded = :lease',
      values: { ':lease': lease },
      stamp: lease,
    });
  }

  async endUnsent(
    delivery: DeliveryRef & Pick<DeliveryRecord, 'attempt_log'>,
    progress: DeliveryProgress,
    entry: AttemptEntry,
    nowMs: number,
  ): Promise<boolean> {
    return this.record(delivery, progress, entry, {
      condition: `#attempts = :seen AND ${NO_LIVE_CLAIM}`,
      values: { ':seen': delivery.attempts, ':now': nowMs },
    });
  }

  async markRetried(
    delivery: DeliveryRef & Pick<DeliveryRecord, 'org_id'>,
    progress: DeliveryProgress,
    nowMs: number,
  ): Promise<DeliveryRecord> {
    const fields = pick(progress);
    const names = Object.keys(fields);
    const answer = await unlessRefused(
      this.options.client.send(
        new UpdateCommand({
          TableName: this.options.tableName,
          Key: deliveryKey(delivery.webhook_id, delivery.id),
          UpdateExpression: `SET ${names.map((_, i) => `#f${i} = :v${i}`).join(', ')}`,
          // Not due and not under way (docs/decisions.md#webhook-hand-sends): ended, or failed with its
          // next attempt still ahead; or stuck (due long ago with no attempt since: its message lost).
          ConditionExpression:
            `#attempts = :seen AND ${NO_LIVE_CLAIM} AND ` +
            '(#status IN (:succeeded, :exhausted, :skipped) OR (#status = :failed AND #next > :nowIso) OR #next < :stuckIso)',
          ExpressionAttributeNames: {
            ...Object.fromEntries(names.map((name, i) => [`#f${i}`, name])),
            '#attempts': 'attempts',
            '#status': 'status',
            '#next': 'next_attempt_at',
            '#until': 'claim_until',
          },
          ExpressionAttributeValues: {
            ...Object.fromEntries(names.map((name, i) => [`:v${i}`, fields[name]])),
            ':seen': delivery.attempts,
            ':now': nowMs,
            ':nowIso': isoTime(nowMs),
            ':stuckIso': isoTime(nowMs - STUCK_AFTER_MS),
            ':succeeded': 'succeeded',
            ':exhausted': 'exhausted',
            ':skipped': 'skipped',
            ':failed': 'failed',
          },
          ReturnValues: 'ALL_NEW',
          ReturnValuesOnConditionCheckFailure: 'ALL_OLD',
        }),
      ),
      (error) => {
        if (oldItemOf(error) === undefined) throw deliveryNotFound(delivery.org_id, delivery.id);
        throw new DeliveryAttemptPending(
          `Delivery ${delivery.id} already has an attempt due or under way: retry it once that attempt has ended ` +
            '(list-webhook-deliveries shows its status and attempts)',
        );
      },
    );
    return toRecord(answer.Attributes!);
  }

  /**
   * Set a delivery's progress after an attempt (or one ended unsent) with its entry appended to the
   * log as it was read, while `guard` holds; the claim, if any, cleared.
   */
  private record(
    delivery: DeliveryRef & Pick<DeliveryRecord, 'attempt_log'>,
    progress: DeliveryProgress,
    entry: AttemptEntry,
    guard: { readonly condition: string; readonly values: Record<string, unknown>; readonly stamp?: string },
  ): Promise<boolean> {
    const fields: Record<string, unknown> = {
      ...pick(progress),
      attempt_log: [...delivery.attempt_log, entry].slice(-MAX_ATTEMPT_ENTRIES),
      ...(guard.stamp !== undefined && { recorded_claim: guard.stamp }),
    };
    const names = Object.keys(fields);
    const input = {
      TableName: this.options.tableName,
      Key: deliveryKey(delivery.webhook_id, delivery.id),
      UpdateExpression: `SET ${names.map((_, i) => `#f${i} = :v${i}`).join(', ')} REMOVE #claim, #until`,
      ConditionExpression: guard.condition,
      ExpressionAttributeNames: {
        ...Object.fromEntries(names.map((name, i) => [`#f${i}`, name])),
        ...(guard.condition.includes('#attempts') && { '#attempts': 'attempts' }),
        ...(guard.stamp !== undefined && { '#recorded': 'recorded_claim' }),
        '#claim': 'claim_id',
        '#until': 'claim_until',
      },
      ExpressionAttributeValues: {
        ...Object.fromEntries(names.map((name, i) => [`:v${i}`, fields[name]])),
        ...guard.values,
      },
    };
    // A stamped record accepts its own earlier application: repeating it is harmless.
    const command = new UpdateCommand(guard.stamp === undefined ? input : idempotent(input));
    return unlessRefused(
      this.options.client.send(command).then(() => true),
      () => false,
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
