/**
 * The embedded dynalite under a burst (`infra/local/dynamo.ts`): the local client reaches it over a
 * Unix socket through at most 50 connections, as the SDK's handler bounds a Lambda's connections to
 * DynamoDB, so thousands of calls at once queue in the client instead of overflowing the socket's
 * listen backlog (`connect EAGAIN`). Always on dynalite, whatever the tier's backend: the socket is
 * dynalite's.
 */
import { afterAll, beforeAll, describe, expect, test } from '@jest/globals';
import { GetCommand, PutCommand, type DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { documentClient, ensureTables, startEmbeddedDynamo, type EmbeddedDynamo } from '../../infra/local/dynamo.js';

let dynamo: EmbeddedDynamo;
let client: DynamoDBDocumentClient;

beforeAll(async () => {
  dynamo = await startEmbeddedDynamo({ backend: { kind: 'dynalite' } });
  await ensureTables(dynamo.connection, dynamo.tableNames);
  client = documentClient(dynamo.connection);
});
afterAll(async () => {
  client?.destroy();
  await dynamo?.close();
});

describe('the local client on dynalite', () => {
  test('2,000 GetItems at once all answer, with no connection error', async () => {
    const TableName = dynamo.tableNames.tokens;
    await client.send(new PutCommand({ TableName, Item: { token: 'burst', status: 'active' } }));
    const outcomes = await Promise.allSettled(
      Array.from({ length: 2_000 }, () => client.send(new GetCommand({ TableName, Key: { token: 'burst' } }))),
    );
    const failures = outcomes.filter((o) => o.status === 'rejected').map((o) => String((o as PromiseRejectedResult).reason));
    expect(failures.slice(0, 3)).toEqual([]);
    expect(outcomes.every((o) => o.status === 'fulfilled' && o.value.Item?.status === 'active')).toBe(true);
  });
});
