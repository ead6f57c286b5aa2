/**
 * What dynalite lets through and DynamoDB does not, exercised on whichever backend runs the file
 * (the `integration-local` project runs it on AWS's DynamoDB Local): an empty string as an index
 * key, an attribute an index does not project, the 400 KB item limit (the largest token item the
 * request bounds allow, measured), and a Query answer past 1 MB, which DynamoDB splits into pages
 * the adapter must follow. Reserved words are no such case: dynalite refuses them as DynamoDB does
 * (checked here too).
 */
import { afterAll, beforeAll, describe, expect, test } from '@jest/globals';
import {
  CreateTableCommand,
  DeleteItemCommand,
  GetItemCommand,
  PutItemCommand,
  QueryCommand,
  UpdateItemCommand,
  waitUntilTableExists,
} from '@aws-sdk/client-dynamodb';
import { tableList } from '../../shared/tables.js';
import { BatchWriteCommand, ScanCommand } from '@aws-sdk/lib-dynamodb';
import { wireItemBytes } from '../bench/proxy/wire-units.js';
import { addFigureLine } from '../support/figures.js';
import { createTestKey, UNLIMITED } from '../support/keys.js';
import { startStack, type Stack } from '../support/local-stack.js';
import { sessionsApi } from '../support/sessions-api.js';

let stack: Stack;

beforeAll(async () => {
  stack = await startStack();
});
afterAll(() => stack.stop());

describe('DynamoDB limits that dynalite does not enforce', () => {
  test('an empty string is no index key on DynamoDB; no catalog item the service wrote carries one', async () => {
    const probe = { pk: { S: 'PROBE#empty' }, sk: { S: 'PROBE' }, gsi1pk: { S: '' }, gsi1sk: { S: 'x' } };
    const put = stack.services.client.send(new PutItemCommand({ TableName: stack.tableNames.catalog, Item: probe }));
    if (stack.dynamoBackend === 'dynalite') {
      // dynalite stores it (and indexes nothing); DynamoDB refuses the whole write.
      await put;
      await stack.services.client.send(new DeleteItemCommand({ TableName: stack.tableNames.catalog, Key: { pk: probe.pk, sk: probe.sk } }));
    } else {
      await expect(put).rejects.toMatchObject({ name: 'ValidationException' });
    }
    const { Items = [] } = await stack.services.client.send(new ScanCommand({ TableName: stack.tableNames.catalog, ConsistentRead: true }));
    expect(Items.length).toBeGreaterThan(0);
    const empty = Items.filter((item) => item.gsi1pk === '' || item.gsi1sk === '');
    expect(empty).toEqual([]);
  });

  test('every index projects ALL: the service reads whole items from its indexes (key list, memberships, catalog); but the report index, which projects what the report counts', () => {
    const indexes = tableList.flatMap((t) => t.indexes.map((i) => `${t.id}.${i.name}: ${JSON.stringify(i.projection ?? 'ALL')}`));
    expect(indexes.length).toBeGreaterThan(0);
    // The session report reads a token's key, target, status and times from it (shared/usage/token-report-store.ts).
    expect(indexes.filter((i) => !i.endsWith(': "ALL"'))).toEqual([
      'Tokens.by_org_created: {"include":["org_id","key_id","game_id","stream_id","status","expires_at"]}',
    ]);
  });

  test('what a KEYS_ONLY index gives for an attribute it does not project: keys only; named, DynamoDB refuses and dynalite drops it', async () => {
    // A table of this stack's own (its prefix: deleted with the stack's tables on a shared DynamoDB).
    const TableName = `${stack.tableNames.tokens.slice(0, -'tokens'.length)}keys-only-probe`;
    const { client } = stack.services;
    await client.send(
      new CreateTableCommand({
        TableName,
        BillingMode: 'PAY_PER_REQUEST',
        KeySchema: [{ AttributeName: 'pk', KeyType: 'HASH' }],
        AttributeDefinitions: [
          { AttributeName: 'pk', AttributeType: 'S' },
          { AttributeName: 'org', AttributeType: 'N' },
        ],
        GlobalSecondaryIndexes: [
          { IndexName: 'by_org', KeySchema: [{ AttributeName: 'org', KeyType: 'HASH' }], Projection: { ProjectionType: 'KEYS_ONLY' } },
        ],
      }),
    );
    // The emulators create a table at once; a real region (DYNAMODB_ENDPOINT) takes seconds.
    await waitUntilTableExists({ client, maxWaitTime: 120, minDelay: 1 }, { TableName });
    await client.send(new PutItemCommand({ TableName, Item: { pk: { S: 'a' }, org: { N: '1' }, name: { S: 'kept out' } } }));
    const query = (projection?: string) =>
      client.send(
        new QueryCommand({
          TableName,
          IndexName: 'by_org',
          KeyConditionExpression: 'org = :org',
          ExpressionAttributeValues: { ':org': { N: '1' } },
          ...(projection && { ProjectionExpression: projection, ExpressionAttributeNames: { '#name': 'name' } }),
        }),
      );
    // Unnamed: the keys, on every backend (a read of `name` would find it missing, silently).
    expect((await query()).Items).toEqual([{ pk: { S: 'a' }, org: { N: '1' } }]);
    const named = query('pk, #name');
    if (stack.dynamoBackend === 'dynalite') {
      expect((await named).Items).toEqual([{ pk: { S: 'a' } }]);
    } else {
      await expect(named).rejects.toMatchObject({ name: 'ValidationException', message: expect.stringContaining('does not project') });
    }
  });

  test('a reserved word unescaped is refused on every backend (dynalite checks a list of 573 words, as many as DynamoDB’s)', async () => {
    const Key = { token: { S: 'no-such-token' } };
    // One at a time: a refusal nobody awaits yet would be an unhandled rejection.
    const refused = [
      () =>
        stack.services.client.send(
          new UpdateItemCommand({
            TableName: stack.tableNames.tokens,
            Key,
            UpdateExpression: 'SET status = :s',
            ExpressionAttributeValues: { ':s': { S: 'x' } },
          }),
        ),
      () =>
        stack.services.client.send(new GetItemCommand({ TableName: stack.tableNames.tokens, Key, ProjectionExpression: 'token, name' })),
    ];
    for (const call of refused) {
      await expect(call()).rejects.toMatchObject({ name: 'ValidationException', message: expect.stringContaining('reserved keyword') });
    }
  });

  test('the largest token item the request bounds allow stays far under 400 KB (measured)', async () => {
    const key = await createTestKey(stack, UNLIMITED);
    const api = sessionsApi(stack, () => key.raw);
    // 4,094 bytes of metadata JSON (the bound is 4,096), 255 three-byte characters where 255 characters are allowed.
    const metadata = { k: '€'.repeat(1362) };
    expect(Buffer.byteLength(JSON.stringify(metadata))).toBe(4094);
    const wide = '€'.repeat(255);
    const token = await api.mint({ game_id: 101, metadata, external_ref: wide, expires_in_minutes: 43_200 });
    expect((await api.consume({ token, player_uuid: wide })).status).toBe(200);
    const { Item } = await stack.services.client.send(
      new GetItemCommand({ TableName: stack.tableNames.tokens, Key: { token: { S: token } }, ConsistentRead: true }),
    );
    const bytes = wireItemBytes(Item as Parameters<typeof wireItemBytes>[0]);
    addFigureLine(`dynamodb-limits: the largest token item is ${bytes.toLocaleString('en-US')} bytes (limit 409,600)`);
    expect(bytes).toBeGreaterThan(4094 + 2 * 765);
    expect(bytes).toBeLessThan(16 * 1024);
  });

  test('listing keys follows the pages of a Query answer past 1 MB', async () => {
    const org = 990_001;
    const filler = 'x'.repeat(4000);
    const items = Array.from({ length: 300 }, (_, i) => ({ key_hash: `paging-${i}`, org_id: org, id: i + 1, name: filler }));
    for (let i = 0; i < items.length; i += 25) {
      const batch = items.slice(i, i + 25).map((Item) => ({ PutRequest: { Item } }));
      let unprocessed: Record<string, any> | undefined = { [stack.tableNames.keys]: batch };
      while (unprocessed && Object.keys(unprocessed).length > 0) {
        ({ UnprocessedItems: unprocessed } = await stack.services.client.send(new BatchWriteCommand({ RequestItems: unprocessed })));
      }
    }
    // About 1.2 MB: one Query answer stops at 1 MB and says where to go on.
    const first = await stack.services.client.send(
      new QueryCommand({
        TableName: stack.tableNames.keys,
        IndexName: 'by_org',
        KeyConditionExpression: 'org_id = :org',
        ExpressionAttributeValues: { ':org': { N: String(org) } },
      }),
    );
    expect(first.LastEvaluatedKey).toBeDefined();
    expect(first.Items!.length).toBeLessThan(items.length);
    const listed = await stack.services.stores.keys.listByOrg(org);
    expect(listed.map((k) => k.id).sort((a, b) => a - b)).toEqual(items.map((k) => k.id));
  });
});
