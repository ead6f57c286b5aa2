import { GetCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import type { ApiKeyRecord } from './model.js';
import type { KeyStore } from './ports.js';
import { idempotent, isConditionalFailure, type StoreOptions } from '../platform/dynamo/client.js';

/**
 * What authentication needs of the keys table: the key by its hash, and its use stamp. Its own
 * class so that the session functions' bundles carry none of the key-management code
 * (`DynamoKeyStore`, which extends it).
 */
export class DynamoKeyAuthStore implements Pick<KeyStore, 'getByHash' | 'touch'> {
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
}
