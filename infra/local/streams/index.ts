/**
 * The local run's DynamoDB Streams, on both backends: DynamoDB Local's own streams, polled
 * (`dynamo-local-streams.ts`), or dynalite's stand-in, records made from the writes it applies
 * (`dynalite-streams.ts`). Either way the records of the `webhook-events` worker's tables are handed
 * over as a DynamoDBStreamEvent, after the same key-prefix filter its event source mappings apply
 * in AWS (shared/webhooks/workers/webhook-events.ts), in the order of each table's writes. A batch
 * answered with a failure is handed over again from the failed record, after a growing wait, as
 * Lambda retries a stream batch (infra/workers.ts: 10 retries); while it waits, the records after
 * it wait too (a shard's order). Once the retries are spent, its records go to the local failures
 * list (`../stream-failures.ts`), where a developer sees and replays them: none is dropped.
 */
import type { DynamoDBBatchResponse, DynamoDBRecord, DynamoDBStreamEvent } from 'aws-lambda';
import { randomUUID } from 'node:crypto';
import { tables, type TableName } from '../../../shared/tables.js';
import { webhookEventsWorker } from '../../../shared/webhooks/index.js';
import type { DynamoConnection, EmbeddedDynamo } from '../dynamo.js';
import type { LocalStreamFailures } from '../stream-failures.js';
import { followDynaliteWrites, type AppliedWrite } from './dynalite-streams.js';
import { DynamoLocalStreams } from './dynamo-local-streams.js';

/** How a failed batch is handed over again: retries at most, and the waits before them (doubling from the first, up to the longest). */
export interface StreamRetries {
  readonly retries: number;
  readonly firstDelayMs: number;
  readonly maxDelayMs: number;
}

/** As Lambda's event source mapping (infra/workers.ts `STREAM_READING`): 10 retries, waits of 100 ms doubling to 2 s (about 11 s in all). */
const LAMBDA_LIKE_RETRIES: StreamRetries = { retries: 10, firstDelayMs: 100, maxDelayMs: 2_000 };
/** DynamoDB Local's streams are settled after this many passes this far apart find nothing. */
const QUIET_PASSES = 3;
const QUIET_PASS_MS = 100;
/** Records per invocation (the event source mappings' batch size). */
const BATCH_SIZE = 100;

/** What reads a batch: the worker's handler. */
export type OnRecords = (event: DynamoDBStreamEvent) => Promise<DynamoDBBatchResponse | void>;

/** Running local streams. */
export interface LocalStreams {
  /** Resolves once every record of the writes made so far has been handed over and read. */
  settle(): Promise<void>;
  close(): Promise<void>;
}

export interface StreamOptions {
  readonly backend: EmbeddedDynamo['backend'];
  readonly connection: DynamoConnection;
  /** Physical table names (prefixed on a shared DynamoDB). */
  readonly tableNames: Record<TableName, string>;
  readonly onRecords: OnRecords;
  /** DynamoDB Local: how often its streams are polled. */
  readonly pollIntervalMs?: number;
  /** Where the records of a batch whose retries are spent are kept. */
  readonly failures: Pick<LocalStreamFailures, 'giveUp'>;
  /** How a failed batch is handed over again ({@link LAMBDA_LIKE_RETRIES} unless given). */
  readonly retries?: StreamRetries;
  /** Where a failed batch is told. */
  readonly log?: (message: string) => void;
}

/** The worker's streamed tables and their filters. */
function streamedTables(): { table: TableName; prefix?: string }[] {
  const trigger = webhookEventsWorker.trigger;
  const prefixes: Partial<Record<TableName, string>> = trigger.keyPrefix;
  return trigger.tables.map((table) => ({ table, prefix: prefixes[table] }));
}

/** Whether a record passes its table's filter (the partition key begins with the prefix). */
function passes(record: DynamoDBRecord, table: TableName, prefix: string | undefined): boolean {
  if (prefix === undefined) return true;
  const value = record.dynamodb?.Keys?.[tables[table].partitionKey.name]?.S;
  return value !== undefined && value.startsWith(prefix);
}

/** Start handing the streamed tables' records to `onRecords`. */
export async function startStreams(options: StreamOptions): Promise<LocalStreams> {
  const streamed = streamedTables();
  const byName = new Map(streamed.map((s) => [options.tableNames[s.table], s]));
  /** Records waiting to be read, a table's at a time (an event source mapping reads one table's stream). */
  const queue: { table: string; records: DynamoDBRecord[] }[] = [];
  let running: Promise<void> | undefined;
  const log = options.log ?? ((message: string) => console.warn(message));

  const retries = options.retries ?? LAMBDA_LIKE_RETRIES;
  const deliver = async (records: DynamoDBRecord[]) => {
    let rest = records;
    for (let retry = 0; ; retry++) {
      let error = 'the worker reported the record as failed';
      const answer = await options.onRecords({ Records: rest }).catch((thrown: unknown) => {
        error = String(thrown);
        log(`webhook-events failed: ${error}`);
        return { batchItemFailures: [{ itemIdentifier: rest[0]!.dynamodb?.SequenceNumber ?? '' }] };
      });
      const failed = answer?.batchItemFailures[0]?.itemIdentifier;
      if (failed === undefined) return;
      const from = Math.max(
        0,
        rest.findIndex((r) => r.dynamodb?.SequenceNumber === failed),
      );
      rest = rest.slice(from);
      if (retry >= retries.retries) {
        options.failures.giveUp(rest, `${error} (${retry + 1} tries)`);
        log(`webhook-events: ${rest.length} stream records kept in the local failures list after ${retry + 1} tries (/dev/webhooks)`);
        return;
      }
      await new Promise((done) => setTimeout(done, Math.min(retries.maxDelayMs, retries.firstDelayMs * 2 ** retry)));
    }
  };
  const drain = (): Promise<void> =>
    (running ??= (async () => {
      while (queue.length > 0) {
        // What waited meanwhile goes in one batch, as a mapping reads up to a batch of what the
        // stream holds (one invocation per write would trail behind a busy table).
        const { table, records } = queue.shift()!;
        const batch = [...records];
        while (queue[0]?.table === table && batch.length + queue[0].records.length <= BATCH_SIZE) batch.push(...queue.shift()!.records);
        await deliver(batch);
      }
    })().finally(() => (running = undefined)));
  const hand = (tableName: string, records: DynamoDBRecord[]) => {
    const s = byName.get(tableName);
    if (!s) return;
    const passing = records.filter((r) => passes(r, s.table, s.prefix));
    for (let i = 0; i < passing.length; i += BATCH_SIZE) queue.push({ table: tableName, records: passing.slice(i, i + BATCH_SIZE) });
    if (passing.length > 0) void drain();
  };
  const settled = async () => {
    while (running || queue.length > 0) await (running ?? drain());
  };

  if (options.backend === 'dynalite') {
    const socketPath = options.connection.socketPath;
    if (!socketPath) throw new Error('dynalite streams need the socket of a dynalite of this process');
    let sequence = 0;
    const stop = followDynaliteWrites(socketPath, (write) => {
      const s = byName.get(write.tableName);
      if (s) hand(write.tableName, [dynaliteRecord(write, s.table, ++sequence)]);
    });
    return {
      settle: async () => {
        // A record is made inside the write, before its answer: every write answered is queued.
        await new Promise((done) => setImmediate(done));
        await settled();
      },
      close: async () => {
        stop();
        await settled();
      },
    };
  }

  const reader = await DynamoLocalStreams.start(
    options.connection,
    streamed.map((s) => options.tableNames[s.table]),
  );
  let polling: Promise<number> | undefined;
  const poll = (): Promise<number> =>
    (polling ??= (async () => {
      let count = 0;
      for (const { tableName, records } of await reader.poll()) {
        count += records.length;
        hand(tableName, records);
      }
      return count;
    })().finally(() => (polling = undefined)));
  let closed = false;
  const timer = setInterval(
    () => void poll().catch((error: unknown) => log(`stream poll failed: ${String(error)}`)),
    options.pollIntervalMs ?? 1_000,
  );
  timer.unref();
  return {
    settle: async () => {
      // Until a pass a moment after the last finds nothing new (DynamoDB Local makes a write's record
      // a moment after answering it), and what was found is read.
      for (let quiet = 0; quiet < QUIET_PASSES;) {
        await new Promise((done) => setTimeout(done, QUIET_PASS_MS));
        quiet = (await poll()) > 0 ? 0 : quiet + 1;
        await settled();
      }
    },
    close: async () => {
      if (closed) return;
      closed = true;
      clearInterval(timer);
      await polling?.catch(() => undefined);
      await settled();
      reader.close();
    },
  };
}

/** The record DynamoDB would write for a write dynalite applied, as its table's stream view keeps it. */
function dynaliteRecord(write: AppliedWrite, table: TableName, sequence: number): DynamoDBRecord {
  const def = tables[table];
  const view = 'stream' in def ? def.stream : undefined;
  const item = (write.newItem ?? write.oldItem)!;
  const keyNames = [def.partitionKey.name, ...('sortKey' in def ? [(def.sortKey as { name: string }).name] : [])];
  const eventName = !write.oldItem ? 'INSERT' : !write.newItem ? 'REMOVE' : 'MODIFY';
  type Image = NonNullable<NonNullable<DynamoDBRecord['dynamodb']>['NewImage']>;
  return {
    eventID: randomUUID().replace(/-/g, ''),
    eventName,
    eventVersion: '1.1',
    eventSource: 'aws:dynamodb',
    awsRegion: 'local',
    eventSourceARN: `arn:aws:dynamodb:local:000000000000:table/${write.tableName}/stream/dynalite`,
    dynamodb: {
      ApproximateCreationDateTime: Math.floor(Date.now() / 1000),
      Keys: Object.fromEntries(keyNames.map((name) => [name, item[name]])) as Image,
      ...(write.newItem && view ? { NewImage: write.newItem as Image } : {}),
      ...(write.oldItem && view === 'NEW_AND_OLD_IMAGES' ? { OldImage: write.oldItem as Image } : {}),
      SequenceNumber: String(sequence).padStart(21, '0'),
      SizeBytes: JSON.stringify(write.newItem ?? write.oldItem).length,
      StreamViewType: view,
    },
  };
}
