/**
 * `TransactWriteItems` for dynalite, which has no transactions: the local run's and the tests'
 * stand-in for what DynamoDB (and DynamoDB Local) do, so that the service's one transaction (an
 * admin's new key with its id item and a check of its org's tier: `DynamoKeyStore.createInOrg`)
 * runs on every backend.
 *
 * Each item is applied in order with its own condition (a ConditionCheck as a conditional write
 * that changes nothing); the first refusal takes back what was applied (each write's old image put
 * back) and answers `TransactionCanceledException` with DynamoDB's `CancellationReasons` (that item
 * `ConditionalCheckFailed`, with the item as it was when it asked for it with
 * `ReturnValuesOnConditionCheckFailure: 'ALL_OLD'` and one existed, as dynalite's single writes now
 * answer: `dynalite-refusals.ts`; the others `None`). Transactions run one at a time; unlike DynamoDB's,
 * they are not isolated from the single writes running meanwhile, and `ClientRequestToken` is not
 * remembered. Enough for a stand-in: no test relies on either.
 */
import {
  DeleteItemCommand,
  DynamoDBClient,
  GetItemCommand,
  PutItemCommand,
  UpdateItemCommand,
  type AttributeValue,
} from '@aws-sdk/client-dynamodb';
import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import { tableDefinitionOf } from './table-names.js';

type Item = Record<string, AttributeValue>;
type Expression = {
  TableName: string;
  ConditionExpression?: string;
  ExpressionAttributeNames?: Record<string, string>;
  ExpressionAttributeValues?: Item;
};
interface TransactItem {
  ConditionCheck?: Expression & { Key: Item };
  Put?: Expression & { Item: Item };
  Update?: Expression & { Key: Item; UpdateExpression: string };
  Delete?: Expression & { Key: Item };
}

const TARGET = 'DynamoDB_20120810.TransactWriteItems';

/**
 * Answer `TransactWriteItems` on a dynalite server; every other request goes to dynalite as before.
 * `connect` makes the client through which the items are applied (dynalite itself, over its socket).
 */
export function addTransactions(server: Server, connect: () => DynamoDBClient): void {
  const dynalite = server.listeners('request') as ((req: IncomingMessage, res: ServerResponse) => void)[];
  server.removeAllListeners('request');
  let client: DynamoDBClient | undefined;
  let queue: Promise<unknown> = Promise.resolve();
  server.on('request', (req: IncomingMessage, res: ServerResponse) => {
    if (req.headers['x-amz-target'] !== TARGET) {
      for (const listener of dynalite) listener.call(server, req, res);
      return;
    }
    client ??= connect();
    const self = client;
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const run = queue.then(() => transact(self, JSON.parse(Buffer.concat(chunks).toString('utf8')) as { TransactItems: TransactItem[] }));
      queue = run.catch(() => undefined);
      run.then(
        ({ status, body }) => answer(res, status, body),
        (error: unknown) => answer(res, 500, { __type: 'com.amazonaws.dynamodb.v20120810#InternalServerError', message: String(error) }),
      );
    });
  });
}

function answer(res: ServerResponse, status: number, body: unknown): void {
  res.writeHead(status, { 'content-type': 'application/x-amz-json-1.0' });
  res.end(JSON.stringify(body));
}

/** The table key of an item of `tableName` (its partition and sort key attributes). */
function keyOf(tableName: string, item: Item): Item {
  const def = tableDefinitionOf(tableName);
  if (!def) throw new Error(`unknown table ${tableName}`);
  const names = [def.partitionKey.name, ...(def.sortKey ? [def.sortKey.name] : [])];
  return Object.fromEntries(names.map((name) => [name, item[name]!]));
}

/** Apply the items in order; on a refusal, take back what was applied and cancel. */
async function transact(client: DynamoDBClient, input: { TransactItems: TransactItem[] }): Promise<{ status: number; body: unknown }> {
  const undo: (() => Promise<unknown>)[] = [];
  const items = input.TransactItems;
  for (const [index, item] of items.entries()) {
    try {
      await apply(client, item, undo);
    } catch (error) {
      for (const takeBack of undo.reverse()) await takeBack();
      const name = (error as { name?: string }).name;
      if (name !== 'ConditionalCheckFailedException') {
        const status = (error as { $metadata?: { httpStatusCode?: number } }).$metadata?.httpStatusCode ?? 500;
        return { status, body: { __type: `com.amazonaws.dynamodb.v20120810#${name}`, message: (error as Error).message } };
      }
      const codes = items.map((_, i) => (i === index ? 'ConditionalCheckFailed' : 'None'));
      // The refused write's old item, when it asked for it (the SDK hands it over in the wire format).
      const old = (error as { Item?: Item }).Item;
      return {
        status: 400,
        body: {
          __type: 'com.amazonaws.dynamodb.v20120810#TransactionCanceledException',
          Message: `Transaction cancelled, please refer cancellation reasons for specific reasons [${codes.join(', ')}]`,
          CancellationReasons: codes.map((Code) =>
            Code === 'None' ? { Code } : { Code, Message: 'The conditional request failed', ...(old ? { Item: old } : {}) },
          ),
        },
      };
    }
  }
  return { status: 200, body: {} };
}

/** Apply one item, noting how to take it back. @throws ConditionalCheckFailedException when its condition fails */
async function apply(client: DynamoDBClient, item: TransactItem, undo: (() => Promise<unknown>)[]): Promise<void> {
  const restore = (tableName: string, key: Item, old: Item | undefined) => () =>
    old
      ? client.send(new PutItemCommand({ TableName: tableName, Item: old }))
      : client.send(new DeleteItemCommand({ TableName: tableName, Key: key }));
  if (item.Put) {
    const { Attributes } = await client.send(new PutItemCommand({ ...item.Put, ReturnValues: 'ALL_OLD' }));
    undo.push(restore(item.Put.TableName, keyOf(item.Put.TableName, item.Put.Item), Attributes));
  } else if (item.Update) {
    const { Attributes } = await client.send(new UpdateItemCommand({ ...item.Update, ReturnValues: 'ALL_OLD' }));
    undo.push(restore(item.Update.TableName, item.Update.Key, Attributes));
  } else if (item.Delete) {
    const { Attributes } = await client.send(new DeleteItemCommand({ ...item.Delete, ReturnValues: 'ALL_OLD' }));
    if (Attributes) undo.push(restore(item.Delete.TableName, item.Delete.Key, Attributes));
  } else if (item.ConditionCheck) {
    await check(client, item.ConditionCheck);
  } else throw new Error('TransactWriteItems: an item needs Put, Update, Delete or ConditionCheck');
}

/**
 * A ConditionCheck, as writes that change nothing: on an existing item, an update that removes an
 * attribute no item has; on a missing one, a put of the bare key under the condition, deleted again.
 */
async function check(client: DynamoDBClient, c: Expression & { Key: Item }): Promise<void> {
  const { Item: existing } = await client.send(new GetItemCommand({ TableName: c.TableName, Key: c.Key, ConsistentRead: true }));
  if (existing) {
    await client.send(
      new UpdateItemCommand({
        ...c,
        UpdateExpression: 'REMOVE #conditionCheckNone',
        ExpressionAttributeNames: { ...c.ExpressionAttributeNames, '#conditionCheckNone': 'condition-check-none' },
      }),
    );
    return;
  }
  await client.send(new PutItemCommand({ ...c, Item: c.Key }));
  await client.send(new DeleteItemCommand({ TableName: c.TableName, Key: c.Key }));
}
