import { UpdateCommand } from '@aws-sdk/lib-dynamodb';
import type { SequenceStore } from '../ids.js';
import type { StoreOptions } from './client.js';

/** Id sequences (`IdAllocator`: key, session and webhook ids) as `seq#<name>` counter items of the counters table. */
export class DynamoSequenceStore implements SequenceStore {
  constructor(private readonly options: StoreOptions) {}

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
