/**
 * The bench's DynamoDB proxy (test/bench/proxy/dynamo-proxy.ts) in front of the embedded DynamoDB:
 * it forwards calls unchanged, and a call over its partition's throughput is answered as DynamoDB
 * answers it, so that the SDK raises `ProvisionedThroughputExceededException` and the service's own
 * retry policy (RETRY_POLICY in shared/platform/dynamo/client.ts) retries it, then gives up as
 * `Overloaded`.
 */
import { afterAll, beforeAll, expect, test } from '@jest/globals';
import { GetCommand, PutCommand } from '@aws-sdk/lib-dynamodb';
import { documentClient, ensureTables, startEmbeddedDynamo, type EmbeddedDynamo } from '../../infra/local/dynamo.js';
import { Overloaded } from '../../shared/platform/errors.js';
import { RETRY_POLICY } from '../../shared/platform/dynamo/client.js';
import { DynamoProxy } from '../bench/proxy/dynamo-proxy.js';
import { stopAll } from '../support/teardown.js';

let dynamo: EmbeddedDynamo;
let proxy: DynamoProxy;

beforeAll(async () => {
  dynamo = await startEmbeddedDynamo({ scratch: true });
  await ensureTables(dynamo.connection, dynamo.tableNames);
  proxy = await DynamoProxy.start(dynamo.connection);
});
// Each step runs even when the one before fails (or never started): no server outlives the file.
afterAll(() =>
  stopAll(
    () => proxy?.close(),
    () => dynamo?.close(),
  ),
);

test('calls pass through the proxy unchanged', async () => {
  proxy.configure({});
  const client = documentClient(proxy.connection);
  await client.send(new PutCommand({ TableName: dynamo.tableNames.counters, Item: { pk: 'through', value: 3 } }));
  const { Item } = await client.send(
    new GetCommand({ TableName: dynamo.tableNames.counters, Key: { pk: 'through' }, ConsistentRead: true }),
  );
  expect(Item).toEqual({ pk: 'through', value: 3 });
  client.destroy();
});

test("a throttled call reaches the SDK as DynamoDB's exception, and the service's retry policy retries it", async () => {
  // 1,000 WCU/s / 10,000: a tenth of a unit per second, so the first write empties the bucket for ~10 s.
  proxy.configure({ partitions: { scale: 10_000, accel: 1 } });
  const client = documentClient(proxy.connection);
  await client.send(new PutCommand({ TableName: dynamo.tableNames.counters, Item: { pk: 'hot' } }));
  const error = await client.send(new PutCommand({ TableName: dynamo.tableNames.counters, Item: { pk: 'hot' } })).catch((e: unknown) => e);
  expect(error).toBeInstanceOf(Overloaded);
  const cause = (error as Overloaded).cause as { name?: string; $metadata?: { httpStatusCode?: number }; ThrottlingReasons?: unknown };
  expect(cause.name).toBe('ProvisionedThroughputExceededException');
  expect(cause.$metadata?.httpStatusCode).toBe(400);
  expect(cause.ThrottlingReasons).toEqual([
    { reason: 'TableWriteKeyRangeThroughputExceeded', resource: `arn:aws:dynamodb:local:000000000000:table/${dynamo.tableNames.counters}` },
  ]);
  expect(proxy.throttled.get(`${dynamo.tableNames.counters} PutItem`)).toBe(RETRY_POLICY.maxAttempts);
  // Another partition of the same table is not hot.
  await client.send(new PutCommand({ TableName: dynamo.tableNames.counters, Item: { pk: 'cold' } }));
  client.destroy();
});
