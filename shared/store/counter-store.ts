import { UpdateCommand } from '@aws-sdk/lib-dynamodb';
import type { CounterStore, CounterWindow } from '../domain/ports.js';
import { TTL_ATTRIBUTE } from '../tables.js';
import { isConditionalFailure, type StoreOptions } from './dynamo-client.js';

/** Rate-limit windows and id sequences as atomic counter items. */
export class DynamoCounterStore implements CounterStore {
  constructor(private readonly options: StoreOptions) {}

  async hit(window: CounterWindow): Promise<number | 'exhausted'> {
    try {
      const { Attributes } = await this.options.client.send(
        new UpdateCommand({
          TableName: this.options.tableName,
          Key: { pk: window.counterKey },
          UpdateExpression: 'SET #count = if_not_exists(#count, :zero) + :one, #ttl = :ttl',
          ConditionExpression: 'attribute_not_exists(#count) OR #count < :limit',
          ExpressionAttributeNames: { '#count': 'count', '#ttl': TTL_ATTRIBUTE },
          ExpressionAttributeValues: { ':zero': 0, ':one': 1, ':limit': window.limit, ':ttl': window.ttl },
          ReturnValues: 'UPDATED_NEW',
        }),
      );
      return Attributes!.count as number;
    } catch (error) {
      if (isConditionalFailure(error)) return 'exhausted';
      throw error;
    }
  }

  async unhit(window: CounterWindow): Promise<void> {
    try {
      await this.options.client.send(
        new UpdateCommand({
          TableName: this.options.tableName,
          Key: { pk: window.counterKey },
          UpdateExpression: 'SET #count = #count - :one',
          ConditionExpression: '#count > :zero',
          ExpressionAttributeNames: { '#count': 'count' },
          ExpressionAttributeValues: { ':zero': 0, ':one': 1 },
        }),
      );
    } catch (error) {
      if (!isConditionalFailure(error)) throw error;
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
