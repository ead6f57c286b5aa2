/**
 * The embedded DynamoDB of the local run and the tests: dynalite on disk (or in memory), tables
 * created from THE tables table, and a sweeper standing in for DynamoDB TTL.
 */
import {
  CreateTableCommand,
  DeleteTableCommand,
  DescribeTableCommand,
  DynamoDBClient,
  ListTablesCommand,
  PutItemCommand,
  ScanCommand as RawScanCommand,
  type AttributeValue,
  type CreateTableCommandInput,
} from '@aws-sdk/client-dynamodb';
import { DeleteCommand, ScanCommand, type DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import dynalite from 'dynalite';
import type { AddressInfo } from 'node:net';
import { tableList, tables, type TableDefinition, type TableName } from '../../shared/tables.js';

/** A running embedded DynamoDB. */
export interface EmbeddedDynamo {
  readonly endpoint: string;
  close(): Promise<void>;
}

/** Start dynalite on a free loopback port; `path` keeps the data on disk across restarts. */
export async function startEmbeddedDynamo(options: { path?: string } = {}): Promise<EmbeddedDynamo> {
  const server = dynalite({ path: options.path, createTableMs: 0, deleteTableMs: 0, updateTableMs: 0 });
  // Node closes idle keep-alive connections after 5 s; a client reusing one just as it closes gets
  // ECONNRESET (a conditional write then fails as a 500). DynamoDB keeps them far longer.
  server.keepAliveTimeout = 300_000;
  await new Promise<void>((resolve, reject) => server.once('error', reject).listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    endpoint: `http://127.0.0.1:${port}`,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections?.();
        server.close(() => resolve());
      }),
  };
}

/** Local physical table names: the logical names themselves. */
export const localTableNames: Record<TableName, string> = Object.fromEntries(Object.keys(tables).map((name) => [name, name])) as Record<
  TableName,
  string
>;

/** The CreateTable request for a table definition (the same shape CDK is given). */
export function createTableInput(def: TableDefinition, tableName: string): CreateTableCommandInput {
  const keySchema = (pk: { name: string }, sk?: { name: string }) => [
    { AttributeName: pk.name, KeyType: 'HASH' as const },
    ...(sk ? [{ AttributeName: sk.name, KeyType: 'RANGE' as const }] : []),
  ];
  const attributes = new Map<string, string>();
  for (const a of [def.partitionKey, def.sortKey, ...def.indexes.flatMap((i) => [i.partitionKey, i.sortKey])]) {
    if (a) attributes.set(a.name, a.type);
  }
  return {
    TableName: tableName,
    BillingMode: 'PAY_PER_REQUEST',
    KeySchema: keySchema(def.partitionKey, def.sortKey),
    AttributeDefinitions: [...attributes].map(([AttributeName, AttributeType]) => ({
      AttributeName,
      AttributeType: AttributeType as 'S' | 'N',
    })),
    ...(def.indexes.length
      ? {
          GlobalSecondaryIndexes: def.indexes.map((i) => ({
            IndexName: i.name,
            KeySchema: keySchema(i.partitionKey, i.sortKey),
            Projection: { ProjectionType: i.projection ?? ('ALL' as const) },
          })),
        }
      : {}),
  };
}

/**
 * Create every table that does not exist yet, and rebuild one whose indexes differ from its
 * definition (a data folder from before an index was added: dynalite cannot add an index in place).
 */
export async function ensureTables(endpoint: string, names: Record<TableName, string> = localTableNames): Promise<void> {
  const client = new DynamoDBClient({ endpoint, region: 'local', credentials: { accessKeyId: 'local', secretAccessKey: 'local' } });
  const existing = new Set((await client.send(new ListTablesCommand({}))).TableNames ?? []);
  for (const [name, def] of Object.entries(tables) as [TableName, TableDefinition][]) {
    if (!existing.has(names[name])) await client.send(new CreateTableCommand(createTableInput(def, names[name])));
    else await rebuildIfIndexesDiffer(client, def, names[name]);
  }
  client.destroy();
}

/** Recreate a local table with its declared indexes, keeping its items (written again, so indexed). */
async function rebuildIfIndexesDiffer(client: DynamoDBClient, def: TableDefinition, tableName: string): Promise<void> {
  const { Table } = await client.send(new DescribeTableCommand({ TableName: tableName }));
  const have = (Table?.GlobalSecondaryIndexes ?? []).map((i) => i.IndexName).sort();
  if (JSON.stringify(have) === JSON.stringify(def.indexes.map((i) => i.name).sort())) return;
  const items: Record<string, AttributeValue>[] = [];
  let ExclusiveStartKey: Record<string, AttributeValue> | undefined;
  do {
    const page = await client.send(new RawScanCommand({ TableName: tableName, ExclusiveStartKey }));
    items.push(...(page.Items ?? []));
    ExclusiveStartKey = page.LastEvaluatedKey;
  } while (ExclusiveStartKey);
  await client.send(new DeleteTableCommand({ TableName: tableName }));
  await client.send(new CreateTableCommand(createTableInput(def, tableName)));
  for (const item of items) await client.send(new PutItemCommand({ TableName: tableName, Item: item }));
}

/**
 * Stand-in for DynamoDB TTL: every `intervalMs`, delete items whose TTL attribute has passed.
 * @returns a function that stops the sweeper
 */
export function startTtlSweeper(
  client: DynamoDBDocumentClient,
  names: Record<TableName, string> = localTableNames,
  intervalMs = 60_000,
  now = () => Date.now(),
): () => void {
  const sweep = async () => {
    for (const def of tableList) {
      if (!def.ttlAttribute) continue;
      const name = names[(Object.keys(tables) as TableName[]).find((k) => tables[k].id === def.id)!];
      let ExclusiveStartKey: Record<string, unknown> | undefined;
      do {
        const page = await client.send(
          new ScanCommand({
            TableName: name,
            FilterExpression: '#ttl < :now',
            ExpressionAttributeNames: { '#ttl': def.ttlAttribute },
            ExpressionAttributeValues: { ':now': Math.floor(now() / 1000) },
            ExclusiveStartKey,
          }),
        );
        for (const item of page.Items ?? []) {
          const Key = Object.fromEntries([def.partitionKey, def.sortKey].filter((a) => a).map((a) => [a!.name, item[a!.name]]));
          await client.send(new DeleteCommand({ TableName: name, Key }));
        }
        ExclusiveStartKey = page.LastEvaluatedKey;
      } while (ExclusiveStartKey);
    }
  };
  const timer = setInterval(() => void sweep().catch(() => undefined), intervalMs);
  timer.unref();
  return () => clearInterval(timer);
}
