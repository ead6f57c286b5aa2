/**
 * A refused conditional write that asks for `ReturnValuesOnConditionCheckFailure: 'ALL_OLD'` carries
 * the item as it was (in the wire format), and nothing when there was no item, on whichever backend
 * runs the file: DynamoDB Local (the `integration-local` project) as DynamoDB does, dynalite through
 * the local stand-ins (`infra/local/dynalite-refusals.ts`, and `dynalite-transactions.ts` for a
 * transaction's refused item). The service never reads an item back after a refusal
 * (`shared/keys/counter-store.ts`, `key-store.ts`, `shared/sessions/token-store.ts`, Powertools'
 * idempotency claims): this is what its reasons rest on.
 */
import { afterAll, beforeAll, describe, expect, test } from '@jest/globals';
import {
  DeleteItemCommand,
  GetItemCommand,
  PutItemCommand,
  TransactWriteItemsCommand,
  UpdateItemCommand,
  type AttributeValue,
} from '@aws-sdk/client-dynamodb';
import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { documentClient, ensureTables, startEmbeddedDynamo, type EmbeddedDynamo } from '../../infra/local/dynamo.js';

let dynamo: EmbeddedDynamo;
let client: DynamoDBDocumentClient;
let table: string;

beforeAll(async () => {
  dynamo = await startEmbeddedDynamo({ scratch: true });
  await ensureTables(dynamo.connection, dynamo.tableNames);
  client = documentClient(dynamo.connection);
  table = dynamo.tableNames.tokens;
});
afterAll(async () => {
  client?.destroy();
  await dynamo?.close();
});

/** A token item as stored, in the wire format. */
const stored = (token: string): Record<string, AttributeValue> => ({
  token: { S: token },
  status: { S: 'consumed' },
  exchange_attempts: { N: '7' },
  revoked_by: { NULL: true },
});
const keyOf = (token: string) => ({ token: { S: token } });
/** Refused on the stored item (its status is not active), and on a missing one. */
const notActive = { ConditionExpression: '#s = :active', ExpressionAttributeNames: { '#s': 'status' } };
const active = { ':active': { S: 'active' } };

/** The error a write is refused with. */
async function refusal(write: Promise<unknown>): Promise<{ name?: string; Item?: unknown; CancellationReasons?: unknown[] }> {
  return write.then(
    () => {
      throw new Error('the write was not refused');
    },
    (error: unknown) => error as { name?: string; Item?: unknown },
  );
}

describe.each([
  [
    'PutItem',
    (token: string, asked: object): Promise<unknown> =>
      client.send(new PutItemCommand({ TableName: table, Item: keyOf(token), ...notActive, ExpressionAttributeValues: active, ...asked })),
  ],
  [
    'UpdateItem',
    (token: string, asked: object): Promise<unknown> =>
      client.send(
        new UpdateItemCommand({
          TableName: table,
          Key: keyOf(token),
          UpdateExpression: 'SET #s = :revoked',
          ...notActive,
          ExpressionAttributeValues: { ...active, ':revoked': { S: 'revoked' } },
          ...asked,
        }),
      ),
  ],
  [
    'DeleteItem',
    (token: string, asked: object): Promise<unknown> =>
      client.send(
        new DeleteItemCommand({ TableName: table, Key: keyOf(token), ...notActive, ExpressionAttributeValues: active, ...asked }),
      ),
  ],
] as const)('a refused %s', (action, write) => {
  const token = `refusal-${action}`;
  beforeAll(async () => {
    await client.send(new PutItemCommand({ TableName: table, Item: stored(token) }));
  });

  test('asking ALL_OLD: the item as it was, in the wire format (and the write is not applied)', async () => {
    const error = await refusal(write(token, { ReturnValuesOnConditionCheckFailure: 'ALL_OLD' }));
    expect(error.name).toBe('ConditionalCheckFailedException');
    expect(error.Item).toEqual(stored(token));
    // Refused again: the item is as it was.
    expect((await refusal(write(token, { ReturnValuesOnConditionCheckFailure: 'ALL_OLD' }))).Item).toEqual(stored(token));
  });

  test('asking nothing, or NONE: no item', async () => {
    for (const asked of [{}, { ReturnValuesOnConditionCheckFailure: 'NONE' }]) {
      const error = await refusal(write(token, asked));
      expect([asked, error.name, error.Item]).toEqual([asked, 'ConditionalCheckFailedException', undefined]);
    }
  });

  test('no item to return: none, though asked', async () => {
    // The condition fails on a missing item too (it has no status).
    const error = await refusal(write(`${token}-missing`, { ReturnValuesOnConditionCheckFailure: 'ALL_OLD' }));
    expect([error.name, error.Item]).toEqual(['ConditionalCheckFailedException', undefined]);
  });
});

test("a transaction's refused ConditionCheck asking ALL_OLD: its cancellation reason carries the item; nothing is written", async () => {
  const token = 'refusal-transaction';
  await client.send(new PutItemCommand({ TableName: table, Item: stored(token) }));
  const transaction = (checked: string) =>
    new TransactWriteItemsCommand({
      TransactItems: [
        { Put: { TableName: table, Item: stored(`${token}-written`) } },
        {
          ConditionCheck: {
            TableName: table,
            Key: keyOf(checked),
            ...notActive,
            ExpressionAttributeValues: active,
            ReturnValuesOnConditionCheckFailure: 'ALL_OLD',
          },
        },
      ],
    });
  const error = await refusal(client.send(transaction(token)));
  expect(error.name).toBe('TransactionCanceledException');
  expect(error.CancellationReasons).toMatchObject([{ Code: 'None' }, { Code: 'ConditionalCheckFailed', Item: stored(token) }]);
  expect((error.CancellationReasons![0] as { Item?: unknown }).Item).toBeUndefined();
  // An item that does not exist: refused without one.
  const missing = await refusal(client.send(transaction(`${token}-missing`)));
  expect(missing.CancellationReasons).toMatchObject([{ Code: 'None' }, { Code: 'ConditionalCheckFailed' }]);
  expect((missing.CancellationReasons![1] as { Item?: unknown }).Item).toBeUndefined();
  const { Item } = await client.send(new GetItemCommand({ TableName: table, Key: keyOf(`${token}-written`), ConsistentRead: true }));
  expect(Item).toBeUndefined();
});
