import { GetCommand } from '@aws-sdk/lib-dynamodb';
import type { HealthProbe } from './health.js';
import type { StoreOptions } from '../platform/dynamo/client.js';

/**
 * The deep health check's read: one eventually consistent GetItem of a fixed key of the catalog
 * table (half a read unit; the item need not exist: a miss is a served read), abandoned after the
 * timeout so that a stuck database answers the check rather than hanging it.
 */
export class DynamoHealthProbe implements HealthProbe {
  constructor(private readonly options: StoreOptions) {}

  async read(timeoutMs: number): Promise<void> {
    await this.options.client.send(new GetCommand({ TableName: this.options.tableName, Key: HEALTH_KEY }), {
      abortSignal: AbortSignal.timeout(timeoutMs),
    });
  }
}

/** The key read: no catalog item has it (`ORG#…`, `GAME#…`, `STREAM#…` are the real ones). */
const HEALTH_KEY = { pk: 'HEALTH', sk: 'HEALTH' } as const;
