import { GetCommand, PutCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import type { ApiKeyRecord } from '../domain/model.js';
import type { KeyStore } from '../domain/ports.js';
import { isConditionalFailure, type StoreOptions } from './dynamo-client.js';

/** API keys in DynamoDB, keyed by the SHA-256 of the raw key. */
export class DynamoKeyStore implements KeyStore {
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
        new UpdateCommand({
          TableName: this.options.tableName,
          Key: { key_hash: keyHash },
          UpdateExpression: 'SET last_used_at = :at',
          ConditionExpression: 'attribute_exists(key_hash)',
          ExpressionAttributeValues: { ':at': atIso },
        }),
      );
    } catch (error) {
      if (!isConditionalFailure(error)) throw error;
    }
  }

  async create(key: ApiKeyRecord): Promise<void> {
    await this.options.client.send(
      new PutCommand({ TableName: this.options.tableName, Item: key, ConditionExpression: 'attribute_not_exists(key_hash)' }),
    );
  }
}
