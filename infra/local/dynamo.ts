/**
 * The DynamoDB of the local run and the tests: dynalite on disk (or in memory) by default, AWS's
 * DynamoDB Local or any given endpoint when asked (`docs/dynamodb-backends.md`), tables created
 * from THE tables table, and a sweeper standing in for DynamoDB TTL.
 *
 * Only the service reaches the data of `npm start` (SECURITY.md, "Local run"): dynalite listens on
 * no network port, only on a Unix socket in a folder of its own that only this user can enter;
 * DynamoDB Local (TCP only) keeps the data under an access key id kept secret in the data folder.
 */
import {
  CreateTableCommand,
  DeleteTableCommand,
  DescribeTableCommand,
  DynamoDBClient,
  ListTablesCommand,
  PutItemCommand,
  ScanCommand as RawScanCommand,
  UpdateTableCommand,
  type AttributeValue,
  type CreateTableCommandInput,
  type DynamoDBClientConfig,
  waitUntilTableExists,
} from '@aws-sdk/client-dynamodb';
import { DeleteCommand, ScanCommand, type DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import dynalite from 'dynalite';
import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { Agent, type AgentOptions, type RequestOptions } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { tableList, tables, type TableDefinition, type TableName } from '../../shared/tables.js';
import { createDocumentClient } from '../../shared/platform/dynamo/client.js';
import { returnOldItemOnRefusal } from './dynalite-refusals.js';
import { addTransactions } from './dynalite-transactions.js';
import { startDynamoLocal } from './dynamo-local.js';
import { followableDynalite, forgetDynalite } from './streams/dynalite-streams.js';

/**
 * How a client reaches a DynamoDB: the endpoint, and the region and credentials it signs with (the
 * emulators check no signature: DynamoDB Local keeps one database per access key id and region).
 * For the embedded dynalite the requests go over `socketPath`, a Unix socket: the endpoint's host
 * is then only a name. A real region's endpoint (`https://dynamodb.<region>.amazonaws.com`) is
 * reached with the default AWS credential chain instead.
 */
export interface DynamoConnection {
  readonly endpoint: string;
  readonly region: string;
  readonly credentials: { readonly accessKeyId: string; readonly secretAccessKey: string };
  readonly socketPath?: string;
}

/** A running DynamoDB for the local run or a test stack, with the physical names of its tables. */
export interface EmbeddedDynamo {
  /** How to reach it (only the service and the tests of this process know the way to dynalite). */
  readonly connection: DynamoConnection;
  /** Which engine this is, for `npm start` and test reports. */
  readonly backend: DynamoBackend['kind'];
  /** What `npm start` prints: the engine and where it runs. */
  readonly description: string;
  /** Prepended to every table name (scratch tables on a shared endpoint get a unique one). */
  readonly tablePrefix: string;
  /** Physical table names: the prefix and the logical name. */
  readonly tableNames: Record<TableName, string>;
  close(): Promise<void>;
}

/**
 * Which DynamoDB to use: dynalite in this process (the default: fast, pure npm), AWS's DynamoDB
 * Local on a JRE (`DYNAMODB_BACKEND=local`), or any endpoint already running (`DYNAMODB_ENDPOINT`:
 * a DynamoDB Local started by hand, or a real region such as https://dynamodb.eu-west-1.amazonaws.com).
 */
export type DynamoBackend = { kind: 'dynalite' } | { kind: 'local' } | { kind: 'endpoint'; endpoint: string };

/**
 * The environment as it was when this module loaded: the local service removes `DYNAMODB_ENDPOINT`
 * once its DynamoDB runs (its functions get their client from it directly), so a second stack in
 * the same process must read what was given, not what the first one left.
 */
const given = {
  backend: process.env.DYNAMODB_BACKEND,
  endpoint: process.env.DYNAMODB_ENDPOINT,
  tablePrefix: process.env.DYNAMODB_TABLE_PREFIX ?? '',
  /** One DynamoDB Local per test worker, started by `test/support/dynamo-local-setup.js`. */
  workerEndpoints: process.env.DYNAMODB_LOCAL_ENDPOINTS,
};

/** What the clients of an emulator shared by every credential sign with (it checks no signature). */
const SHARED_CREDENTIALS = { accessKeyId: 'local', secretAccessKey: 'local' } as const;

/**
 * The backend the environment asks for (see {@link DynamoBackend}): a given endpoint wins over
 * `DYNAMODB_BACKEND`; an unknown backend name is refused rather than read as the default.
 * @param env `DYNAMODB_BACKEND` and `DYNAMODB_ENDPOINT`, as they were when this module loaded by default
 */
export function configuredBackend(env: { readonly backend?: string; readonly endpoint?: string } = given): DynamoBackend {
  if (env.endpoint) return { kind: 'endpoint', endpoint: env.endpoint };
  if (env.backend === 'local') return { kind: 'local' };
  if (env.backend && env.backend !== 'dynalite') throw new Error(`DYNAMODB_BACKEND must be dynalite or local, not ${env.backend}`);
  return { kind: 'dynalite' };
}

/** The physical names of every table under a prefix. */
export function prefixedTableNames(prefix: string): Record<TableName, string> {
  return Object.fromEntries(Object.keys(tables).map((name) => [name, `${prefix}${name}`])) as Record<TableName, string>;
}

/**
 * Start (or join) the configured DynamoDB.
 * @param options.path keeps the data on disk (dynalite, or an own DynamoDB Local); in memory when absent
 * @param options.scratch the tables live as long as this handle: on a shared endpoint (a test
 *   worker's DynamoDB Local, a given endpoint) they get a prefix of their own and are deleted on close
 */
export async function startEmbeddedDynamo(
  options: { path?: string; scratch?: boolean; backend?: DynamoBackend } = {},
): Promise<EmbeddedDynamo> {
  const backend = options.backend ?? configuredBackend();
  const shared =
    backend.kind === 'endpoint'
      ? backend.endpoint
      : backend.kind === 'local'
        ? workerEndpoint(given.workerEndpoints, process.env.JEST_WORKER_ID)
        : undefined;
  if (shared) {
    const connection: DynamoConnection = { endpoint: shared, region: 'local', credentials: SHARED_CREDENTIALS };
    const tablePrefix = given.tablePrefix + (options.scratch ? `s${randomUUID().slice(0, 8)}-` : '');
    const description =
      backend.kind === 'local' ? `DynamoDB Local (this test worker's) at ${shared}` : `the DynamoDB at ${shared} (DYNAMODB_ENDPOINT)`;
    const close = options.scratch ? () => deleteTables(connection, tablePrefix) : async () => undefined;
    return { connection, backend: backend.kind, description, tablePrefix, tableNames: prefixedTableNames(tablePrefix), close };
  }
  const tablePrefix = given.tablePrefix;
  if (backend.kind === 'local') {
    const jvm = await startDynamoLocal({ path: options.path ? `${options.path}-local` : undefined });
    const { endpoint, region, credentials } = jvm;
    const where = options.path ? 'kept in the data folder' : 'of this run';
    return {
      connection: { endpoint, region, credentials },
      backend: 'local',
      description: `DynamoDB Local (Java, pid ${jvm.pid}) at ${endpoint}, its data under an access key id ${where}`,
      tablePrefix,
      tableNames: prefixedTableNames(tablePrefix),
      close: jvm.close,
    };
  }
  const { connection, close } = await startDynalite(options.path);
  return {
    connection,
    backend: 'dynalite',
    description: 'dynalite (in process, no network port)',
    tablePrefix,
    tableNames: prefixedTableNames(tablePrefix),
    close,
  };
}

/** A real DynamoDB endpoint (`https://dynamodb.<region>.amazonaws.com`): its region, else undefined. */
export function awsRegionOf(endpoint: string): string | undefined {
  return /^https:\/\/dynamodb\.([a-z0-9-]+)\.amazonaws\.com\/?$/.exec(endpoint)?.[1];
}

/**
 * Connections one client opens to dynalite at most: the SDK's Node handler's own default, which
 * bounds a Lambda's connections to DynamoDB (`@smithy/node-http-handler`, `maxSockets: 50`). More
 * calls at once wait in the client for a free connection, as they do in Lambda.
 */
const DYNALITE_MAX_SOCKETS = 50;

/**
 * Connections waiting to be accepted that dynalite's socket holds (the kernel caps it at
 * `net.core.somaxconn`, 4096 by default): room for the connections of every client of the process
 * (the service's, the transactions' and the streams', the tests' own) opening at once. Past it a
 * connect fails at once with EAGAIN (a Unix socket does not queue more).
 */
const DYNALITE_BACKLOG = 1_024;

/** What the SDK sends dynalite's requests through: at most {@link DYNALITE_MAX_SOCKETS} keep-alive connections to its Unix socket. */
function socketHandler(socketPath: string): DynamoDBClientConfig['requestHandler'] {
  // An agent's options reach the connections it makes, `socketPath` included (Node's own types omit it).
  const options: AgentOptions & { socketPath: string } = { keepAlive: true, maxSockets: DYNALITE_MAX_SOCKETS, socketPath };
  return { httpAgent: new Agent(options) };
}

/** Raw SDK client settings for a connection: the default credential chain for a real region. */
function clientConfig(connection: DynamoConnection): DynamoDBClientConfig {
  const region = awsRegionOf(connection.endpoint);
  if (region) return { region };
  const { endpoint, credentials, socketPath } = connection;
  return { endpoint, region: connection.region, credentials, ...(socketPath ? { requestHandler: socketHandler(socketPath) } : {}) };
}

/**
 * The service's document client (`createDocumentClient`: its retries, its translation of
 * throttling) on a connection: what the local run's functions use, and the tests' raw reads. On an
 * emulator its calls have no deadline, as they have no timeouts: dynalite shares this process's
 * event loop (DynamoDB Local this machine), so a wall clock would measure the machine's load (a
 * busy test run), not the store. A real region's client keeps the request's deadline.
 */
export function documentClient(connection: DynamoConnection): DynamoDBDocumentClient {
  const region = awsRegionOf(connection.endpoint);
  if (region) return createDocumentClient({ region });
  const { endpoint, credentials, socketPath } = connection;
  return createDocumentClient({
    endpoint,
    region: connection.region,
    credentials,
    ...(socketPath ? { requestHandler: socketHandler(socketPath) } : {}),
    timeLeft: () => Infinity,
  });
}

/**
 * Where a plain `http.request` (the tests' recording proxy, the benchmark's proxy) sends a request
 * to an emulator: dynalite's socket, or the endpoint's host and port.
 */
export function requestTarget(connection: DynamoConnection): Pick<RequestOptions, 'socketPath' | 'host' | 'port'> {
  if (connection.socketPath) return { socketPath: connection.socketPath };
  const url = new URL(connection.endpoint);
  return { host: url.hostname, port: url.port };
}

/**
 * This Jest worker's DynamoDB Local, when the test run started one per worker: worker n (from 1)
 * takes the n-th endpoint, wrapping around when Jest numbers more workers than processes started.
 * @param list `DYNAMODB_LOCAL_ENDPOINTS` (comma-separated) @param workerId `JEST_WORKER_ID` (1 outside Jest)
 */
export function workerEndpoint(list: string | undefined, workerId: string | undefined): string | undefined {
  const endpoints = list?.split(',').filter(Boolean) ?? [];
  if (endpoints.length === 0) return undefined;
  return endpoints[(Number(workerId ?? 1) - 1) % endpoints.length];
}

/** Delete every table whose name holds the (random) prefix: the scratch tables of one stack, also under a label (`lifecycle-s1a2b3c4-keys`). */
async function deleteTables(connection: DynamoConnection, prefix: string): Promise<void> {
  const client = new DynamoDBClient(clientConfig(connection));
  try {
    let ExclusiveStartTableName: string | undefined;
    do {
      const page = await client.send(new ListTablesCommand({ ExclusiveStartTableName }));
      for (const TableName of page.TableNames ?? []) {
        if (TableName.includes(prefix)) await client.send(new DeleteTableCommand({ TableName })).catch(() => undefined);
      }
      ExclusiveStartTableName = page.LastEvaluatedTableName;
    } while (ExclusiveStartTableName);
  } finally {
    client.destroy();
  }
}

/**
 * Start dynalite with no network port: it listens on a Unix socket in a folder of its own (made
 * 0700 by `mkdtemp`), which no other user can enter and no browser can address, so only this
 * process (and other processes of this user) reach it. The folder goes when it closes, or when the
 * process exits. `path` keeps the data on disk across restarts.
 */
async function startDynalite(path: string | undefined): Promise<{ connection: DynamoConnection; close(): Promise<void> }> {
  const folder = mkdtempSync(join(tmpdir(), 'gsts-dynalite-'));
  const removeFolder = () => rmSync(folder, { recursive: true, force: true });
  process.once('exit', removeFolder);
  const socketPath = join(folder, 'dynamodb.sock');
  // A refused write that asks for the item as it was gets it, as from DynamoDB (dynalite-refusals.ts).
  returnOldItemOnRefusal();
  // Its writes can be followed as a stream (streams/dynalite-streams.ts: dynalite has no streams).
  const server = followableDynalite(socketPath, () => dynalite({ path, createTableMs: 0, deleteTableMs: 0, updateTableMs: 0 }));
  // The host names nothing: the socket carries every request.
  const connection: DynamoConnection = {
    endpoint: 'http://dynalite.localhost',
    region: 'local',
    credentials: SHARED_CREDENTIALS,
    socketPath,
  };
  // dynalite has no transactions; the service writes an admin's new key in one (dynalite-transactions.ts),
  // whose items are applied through the same socket.
  addTransactions(server, () => new DynamoDBClient({ ...clientConfig(connection), maxAttempts: 1 }));
  // Node closes idle keep-alive connections after 5 s; a client reusing one just as it closes gets
  // ECONNRESET (a conditional write then fails as a 500). DynamoDB keeps them far longer.
  server.keepAliveTimeout = 300_000;
  try {
    await new Promise<void>((resolve, reject) =>
      server.once('error', reject).listen({ path: socketPath, backlog: DYNALITE_BACKLOG }, resolve),
    );
  } catch (error) {
    removeFolder();
    process.off('exit', removeFolder);
    throw error;
  }
  return {
    connection,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections?.();
        server.close(() => {
          forgetDynalite(socketPath);
          removeFolder();
          process.off('exit', removeFolder);
          resolve();
        });
      }),
  };
}

/** Local physical table names: the logical names themselves. */
export const localTableNames: Record<TableName, string> = prefixedTableNames('');

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
    // DynamoDB Local keeps the stream; dynalite drops the parameter (its stand-in: infra/local/streams/).
    ...(def.stream ? { StreamSpecification: { StreamEnabled: true, StreamViewType: def.stream } } : {}),
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
            Projection:
              typeof i.projection === 'object'
                ? { ProjectionType: 'INCLUDE' as const, NonKeyAttributes: [...i.projection.include] }
                : { ProjectionType: i.projection ?? ('ALL' as const) },
          })),
        }
      : {}),
  };
}

/**
 * Create every table that does not exist yet, and rebuild one whose indexes differ from its
 * definition (a data folder from before an index was added: dynalite cannot add an index in place).
 */
export async function ensureTables(connection: DynamoConnection, names: Record<TableName, string> = localTableNames): Promise<void> {
  const client = new DynamoDBClient(clientConfig(connection));
  const existing = new Set((await client.send(new ListTablesCommand({}))).TableNames ?? []);
  for (const [name, def] of Object.entries(tables) as [TableName, TableDefinition][]) {
    if (!existing.has(names[name])) {
      await client.send(new CreateTableCommand(createTableInput(def, names[name])));
      // DynamoDB (and a given endpoint) creates a table in seconds; the emulators at once.
      await waitUntilTableExists({ client, maxWaitTime: 300, minDelay: 1 }, { TableName: names[name] });
    } else {
      await rebuildIfIndexesDiffer(client, def, names[name]);
      await enableStream(client, def, names[name]);
    }
  }
  client.destroy();
}

/**
 * Turn on the declared stream of a table made before it had one (a data folder of an earlier run).
 * Only DynamoDB Local (or a given endpoint) reports streams; dynalite has none, and its stand-in needs none.
 */
async function enableStream(client: DynamoDBClient, def: TableDefinition, tableName: string): Promise<void> {
  if (!def.stream) return;
  const { Table } = await client.send(new DescribeTableCommand({ TableName: tableName }));
  if (Table?.StreamSpecification?.StreamEnabled) return;
  // dynalite refuses an update it cannot read: nothing to turn on there.
  await client
    .send(new UpdateTableCommand({ TableName: tableName, StreamSpecification: { StreamEnabled: true, StreamViewType: def.stream } }))
    .catch(() => undefined);
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
