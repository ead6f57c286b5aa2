/**
 * Webhook endpoints in the catalog table, beside their organization: `ORG#<org_id>` /
 * `WEBHOOK#<id>` (the id zero-padded, so the org's endpoints list in id order), and one count item
 * per org, `ORG#<org_id>` / `WEBHOOKS`, that holds the organization to its maximum: a create adds 1
 * to it under the condition `count < max` in the same transaction as the endpoint's put, and a
 * delete takes 1 off in the same transaction as the endpoint's delete, so two creates racing for
 * the last place cannot both succeed. No index key: endpoints are in no index.
 */
import { GetCommand, TransactWriteCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { Conflict, Overloaded } from '../platform/errors.js';
import { sortableId, unlessRefused, type StoreOptions, queryItems } from '../platform/dynamo/client.js';
import type { SealedSecrets, WebhookChanges, WebhookRecord } from './model.js';
import type { WebhookStore } from './ports.js';

const PREFIX = 'WEBHOOK#';
/** The org's endpoint count item. */
const COUNT_SK = 'WEBHOOKS';

const endpointKey = (orgId: number, id: number) => ({ pk: `ORG#${orgId}`, sk: `${PREFIX}${sortableId(id)}` });
const countKey = (orgId: number) => ({ pk: `ORG#${orgId}`, sk: COUNT_SK });

/** The DynamoDB adapter of {@link WebhookStore}. */
export class DynamoWebhookStore implements WebhookStore {
  constructor(private readonly options: StoreOptions) {}

  async listByOrg(orgId: number): Promise<WebhookRecord[]> {
    const items = await queryItems(this.options.client, {
      TableName: this.options.tableName,
      KeyConditionExpression: 'pk = :pk AND begins_with(sk, :prefix)',
      ExpressionAttributeValues: { ':pk': `ORG#${orgId}`, ':prefix': PREFIX },
      ConsistentRead: true,
    });
    return items.map(toRecord);
  }

  async find(orgId: number, id: number): Promise<WebhookRecord | undefined> {
    const { Item } = await this.options.client.send(
      new GetCommand({ TableName: this.options.tableName, Key: endpointKey(orgId, id), ConsistentRead: true }),
    );
    return Item ? toRecord(Item) : undefined;
  }

  async create(record: WebhookRecord, max: number): Promise<void> {
    const { tableName: TableName } = this.options;
    try {
      await this.options.client.send(
        new TransactWriteCommand({
          TransactItems: [
            {
              Update: {
                TableName,
                Key: countKey(record.org_id),
                UpdateExpression: 'ADD #count :one',
                ConditionExpression: 'attribute_not_exists(#count) OR #count < :max',
                ExpressionAttributeNames: { '#count': 'count' },
                ExpressionAttributeValues: { ':one': 1, ':max': max },
              },
            },
            {
              Put: {
                TableName,
                Item: { ...endpointKey(record.org_id, record.id), ...record },
                ConditionExpression: 'attribute_not_exists(pk)',
              },
            },
          ],
        }),
      );
    } catch (error) {
      const reasons = (error as { CancellationReasons?: { Code?: string }[] }).CancellationReasons;
      if (reasons?.[0]?.Code === 'ConditionalCheckFailed') {
        throw new Conflict(`An organization has at most ${max} webhook endpoints: delete one first`, undefined, { cause: error });
      }
      // Cancelled by a concurrent transaction on the count, or throttled: nothing was written, a retry may pass.
      if (reasons?.some((r) => r.Code !== undefined && r.Code !== 'None')) throw new Overloaded({ cause: error });
      throw error;
    }
  }

  async update(
    orgId: number,
    id: number,
    changes: WebhookChanges,
    atIso: string,
  ): Promise<{ before: WebhookRecord; after: WebhookRecord } | undefined> {
    // Turning an endpoint on starts its failure streak afresh: one disabled after 5 days of failures
    // would otherwise be disabled again by its first failure after being re-enabled.
    const written: Record<string, unknown> = { ...changes, ...(changes.is_active === true && { failing_since: null }) };
    const entries = Object.entries(written).filter(([, v]) => v !== undefined);
    const names = Object.fromEntries(entries.map(([k], i) => [`#f${i}`, k]));
    const values = Object.fromEntries(entries.map(([, v], i) => [`:v${i}`, v]));
    const sets = [...entries.map((_, i) => `#f${i} = :v${i}`), 'updated_at = :at'];
    // paused_at marks the last change from active to paused. It exists only while paused, so a pause
    // of an endpoint already paused keeps its time, decided in this one write (no read before it).
    if (changes.is_active === false) sets.push('paused_at = if_not_exists(paused_at, :at)');
    const removes = changes.is_active === true ? ' REMOVE paused_at' : '';
    const answer = await unlessRefused(
      this.options.client.send(
        new UpdateCommand({
          TableName: this.options.tableName,
          Key: endpointKey(orgId, id),
          UpdateExpression: `SET ${sets.join(', ')}${removes}`,
          ConditionExpression: 'attribute_exists(pk)',
          ...(entries.length > 0 && { ExpressionAttributeNames: names }),
          ExpressionAttributeValues: { ...values, ':at': atIso },
          ReturnValues: 'ALL_OLD',
        }),
      ),
      () => undefined,
    );
    if (!answer) return undefined;
    const before = toRecord(answer.Attributes!);
    const { paused_at: _pausedAt, ...after } = { ...before, ...written, updated_at: atIso } as WebhookRecord;
    const pausedAt = changes.is_active === true ? undefined : changes.is_active === false ? (before.paused_at ?? atIso) : before.paused_at;
    return { before, after: { ...after, ...(pausedAt !== undefined && { paused_at: pausedAt }) } };
  }

  async replaceSecrets(orgId: number, id: number, expected: string, secrets: SealedSecrets, atIso: string): Promise<boolean> {
    return unlessRefused(
      this.options.client
        .send(
          new UpdateCommand({
            TableName: this.options.tableName,
            Key: endpointKey(orgId, id),
            UpdateExpression: 'SET secret_sealed = :s, previous_secret_sealed = :p, previous_secret_until = :u, updated_at = :at',
            ConditionExpression: 'attribute_exists(pk) AND secret_sealed = :expected',
            ExpressionAttributeValues: {
              ':s': secrets.secret_sealed,
              ':p': secrets.previous_secret_sealed,
              ':u': secrets.previous_secret_until,
              ':at': atIso,
              ':expected': expected,
            },
          }),
        )
        .then(() => true),
      () => false,
    );
  }

  async recordHealth(orgId: number, id: number, failingSince: string | null, disable: boolean, atIso: string): Promise<boolean> {
    return unlessRefused(
      this.options.client
        .send(
          new UpdateCommand({
            TableName: this.options.tableName,
            Key: endpointKey(orgId, id),
            UpdateExpression: disable
              ? 'SET failing_since = :since, is_active = :false, paused_at = :at, updated_at = :at'
              : 'SET failing_since = :since',
            ConditionExpression: disable ? 'attribute_exists(pk) AND is_active = :true' : 'attribute_exists(pk)',
            ExpressionAttributeValues: {
              ':since': failingSince,
              ...(disable && { ':false': false, ':true': true, ':at': atIso }),
            },
          }),
        )
        .then(() => true),
      () => false,
    );
  }

  async remove(orgId: number, id: number): Promise<boolean> {
    const { tableName: TableName } = this.options;
    try {
      await this.options.client.send(
        new TransactWriteCommand({
          TransactItems: [
            { Delete: { TableName, Key: endpointKey(orgId, id), ConditionExpression: 'attribute_exists(pk)' } },
            {
              Update: {
                TableName,
                Key: countKey(orgId),
                UpdateExpression: 'ADD #count :minus',
                ExpressionAttributeNames: { '#count': 'count' },
                ExpressionAttributeValues: { ':minus': -1 },
              },
            },
          ],
        }),
      );
      return true;
    } catch (error) {
      const reasons = (error as { CancellationReasons?: { Code?: string }[] }).CancellationReasons;
      if (reasons?.[0]?.Code === 'ConditionalCheckFailed') return false;
      if (reasons?.some((r) => r.Code !== undefined && r.Code !== 'None')) throw new Overloaded({ cause: error });
      throw error;
    }
  }
}

/** An item as a record: the keys dropped. */
function toRecord(item: Record<string, unknown>): WebhookRecord {
  const { pk: _pk, sk: _sk, ...record } = item;
  return record as unknown as WebhookRecord;
}
