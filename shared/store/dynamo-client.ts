import { DynamoDBClient, type DynamoDBClientConfig } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { Overloaded } from '../domain/errors.js';

/** What every DynamoDB adapter's constructor takes. */
export interface StoreOptions {
  readonly client: DynamoDBDocumentClient;
  readonly tableName: string;
}

const THROTTLING = new Set(['ProvisionedThroughputExceededException', 'ThrottlingException', 'RequestLimitExceeded']);

/** Name of a DynamoDB conditional-write failure. */
export function isConditionalFailure(error: unknown): boolean {
  return (error as { name?: string } | null)?.name === 'ConditionalCheckFailedException';
}

/**
 * A document client for the service. `endpoint` points at the embedded DynamoDB locally. Throttling
 * (after the SDK's own retries) becomes the domain's `Overloaded`, so every adapter and handler
 * answers 503 with Retry-After instead of a bare 500.
 */
export function createDocumentClient(options: { endpoint?: string | undefined; region?: string } = {}): DynamoDBDocumentClient {
  const config: DynamoDBClientConfig = options.endpoint
    ? { endpoint: options.endpoint, region: options.region ?? 'local', credentials: { accessKeyId: 'local', secretAccessKey: 'local' } }
    : { region: options.region ?? process.env.AWS_REGION };
  const client = DynamoDBDocumentClient.from(new DynamoDBClient(config), {
    marshallOptions: { removeUndefinedValues: true },
  });
  client.middlewareStack.add(
    (next) => async (args) => {
      try {
        return await next(args);
      } catch (error) {
        if (THROTTLING.has((error as { name?: string }).name ?? '')) throw new Overloaded({ cause: error });
        throw error;
      }
    },
    { step: 'initialize', name: 'translateThrottling' },
  );
  return client;
}
