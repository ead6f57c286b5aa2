import { DeleteCommand, GetCommand, PutCommand, QueryCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { Conflict, NotFound } from '../domain/errors.js';
import type { ApiKeyRecord } from '../domain/model.js';
import type { KeyAddress, KeyAdminStore, KeyChanges, KeyStore } from '../domain/ports.js';
import { idempotent, isConditionalFailure, queryItems, type StoreOptions } from './dynamo-client.js';

/** API keys in DynamoDB, keyed by the SHA-256 of the raw key. */
export class DynamoKeyStore implements KeyStore, KeyAdminStore {
  constructor(protected readonly options: StoreOptions) {}

  async getByHash(keyHash: string): Promise<ApiKeyRecord | undefined> {
    const { Item } = await this.options.client.send(
      // Strongly consistent: a revocation or deletion is seen by the very next call.
      new GetCommand({ TableName: this.options.tableName, Key: { key_hash: keyHash }, ConsistentRead: true }),
    );
    return Item as ApiKeyRecord | undefined;
  }

  async touch(keyHash: string, atIso: string): Promise<void> {
    try {
      await this.options.client.send(
        // Sets a fixed value: repeating it is harmless.
        new UpdateCommand(
          idempotent({
            TableName: this.options.tableName,
            Key: { key_hash: keyHash },
            UpdateExpression: 'SET last_used_at = :at',
            ConditionExpression: 'attribute_exists(key_hash)',
            ExpressionAttributeValues: { ':at': atIso },
          }),
        ),
      );
    } catch (error) {
      if (!isConditionalFailure(error)) throw error;
    }
  }

  async create(key: ApiKeyRecord): Promise<void> {
    await this.options.client.send(
      new PutCommand(
        idempotent({
          TableName: this.options.tableName,
          Item: key,
          // The hash is of a fresh 160-bit random key: an item with it and this id can only be this
          // very put, applied once already with its answer lost; the retry then succeeds.
          ConditionExpression: 'attribute_not_exists(key_hash) OR (id = :id AND org_id = :org)',
          ExpressionAttributeValues: { ':id': key.id, ':org': key.org_id },
        }),
      ),
    );
  }

  async listByOrg(orgId: number): Promise<ApiKeyRecord[]> {
    const items = await queryItems(this.options.client, {
      TableName: this.options.tableName,
      IndexName: 'by_org',
      KeyConditionExpression: 'org_id = :org',
      ExpressionAttributeValues: { ':org': orgId },
    });
    return items as unknown as ApiKeyRecord[];
  }

  async findInOrg(orgId: number, id: number): Promise<ApiKeyRecord | undefined> {
    const { Items } = await this.options.client.send(
      new QueryCommand({
        TableName: this.options.tableName,
        IndexName: 'by_org',
        KeyConditionExpression: 'org_id = :org AND id = :id',
        ExpressionAttributeValues: { ':org': orgId, ':id': id },
      }),
    );
    return Items?.[0] as ApiKeyRecord | undefined;
  }

  async update(key: KeyAddress, changes: KeyChanges, updatedAtIso: string, options: { unrotated?: boolean } = {}): Promise<ApiKeyRecord> {
    const entries = [...Object.entries(changes).filter(([, v]) => v !== undefined), ['updated_at', updatedAtIso] as const];
    try {
      const { Attributes } = await this.options.client.send(
        // Sets fixed values under a condition a repetition still meets: harmless to repeat.
        new UpdateCommand(
          idempotent({
            TableName: this.options.tableName,
            Key: { key_hash: key.key_hash },
            UpdateExpression: `SET ${entries.map((_, i) => `#f${i} = :v${i}`).join(', ')}`,
            // The index read that found the key may be stale: the key must still be there, in that org.
            // A rotation also requires that no other rotation got there first.
            ConditionExpression: options.unrotated
              ? 'org_id = :org AND id = :id AND (attribute_not_exists(rotated_to) OR attribute_type(rotated_to, :null))'
              : 'org_id = :org AND id = :id',
            ExpressionAttributeNames: Object.fromEntries(entries.map(([k], i) => [`#f${i}`, k])),
            ExpressionAttributeValues: {
              ...Object.fromEntries(entries.map(([, v], i) => [`:v${i}`, v])),
              ':org': key.org_id,
              ':id': key.id,
              ...(options.unrotated ? { ':null': 'NULL' } : {}),
            },
            ReturnValues: 'ALL_NEW',
          }),
        ),
      );
      return Attributes as ApiKeyRecord;
    } catch (error) {
      if (isConditionalFailure(error) && options.unrotated) {
        throw new Conflict(`API key ${key.id} was deleted or rotated meanwhile`, undefined, { cause: error });
      }
      if (isConditionalFailure(error)) throw new NotFound(`API key ${key.id} not found in organization ${key.org_id}`, { cause: error });
      throw error;
    }
  }

  async unretire(
    key: KeyAddress,
    restore: Pick<ApiKeyRecord, 'is_active' | 'expires_at'>,
    rotatedTo: number,
    retiredAtIso: string,
  ): Promise<boolean> {
    try {
      await this.options.client.send(
        new UpdateCommand({
          TableName: this.options.tableName,
          Key: { key_hash: key.key_hash },
          UpdateExpression: 'SET is_active = :active, expires_at = :expires, rotated_to = :null',
          ConditionExpression: 'org_id = :org AND id = :id AND rotated_to = :to AND updated_at = :at',
          ExpressionAttributeValues: {
            ':active': restore.is_active,
            ':expires': restore.expires_at,
            ':null': null,
            ':org': key.org_id,
            ':id': key.id,
            ':to': rotatedTo,
            ':at': retiredAtIso,
          },
        }),
      );
      return true;
    } catch (error) {
      if (isConditionalFailure(error)) return false;
      throw error;
    }
  }

  async remove(key: KeyAddress): Promise<void> {
    try {
      await this.options.client.send(
        new DeleteCommand({
          TableName: this.options.tableName,
          Key: { key_hash: key.key_hash },
          ConditionExpression: 'org_id = :org AND id = :id',
          ExpressionAttributeValues: { ':org': key.org_id, ':id': key.id },
        }),
      );
    } catch (error) {
      if (isConditionalFailure(error)) throw new NotFound(`API key ${key.id} not found in organization ${key.org_id}`, { cause: error });
      throw error;
    }
  }
}
