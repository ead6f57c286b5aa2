/**
 * The workers of THE workers table (shared/workers.ts) in the local run, each its own handler
 * (`functions/<name>.ts`, as Lambda runs it) on the local stand-in of its trigger:
 * - a stream worker reads the local streams (`streams/`: DynamoDB Local's own, or dynalite's
 *   stand-in made from the writes it applies); what it cannot turn into events is kept in the local
 *   failures list (`stream-failures.ts`), replayable from `/dev/webhooks`;
 * - a queue worker takes the in-process queue's batches (`delivery-queue.ts`), which the functions'
 *   services send to in place of SQS (`ServiceOverrides.queues`);
 * - a scheduled worker runs on a timer.
 * `npm start` runs them (and the test stacks that ask), so a local write reaches a local receiver as
 * a signed delivery, as in AWS.
 */
import type { ScheduledEvent } from 'aws-lambda';
import { join } from 'node:path';
import type { Clock } from '../../shared/platform/time.js';
import type { TableName } from '../../shared/tables.js';
import { workers } from '../../shared/workers.js';
import { LocalDeliveryQueue, type QueueHandler } from './delivery-queue.js';
import type { DynamoConnection, EmbeddedDynamo } from './dynamo.js';
import { LocalStreamFailures } from './stream-failures.js';
import { startStreams, type LocalStreams, type OnRecords } from './streams/index.js';

/** How often the local queue looks for due messages (SQS's long poll answers within milliseconds). */
const QUEUE_POLL_MS = 100;
/** How often DynamoDB Local's streams are read (Lambda polls a stream shard about 4 times a second). */
const STREAM_POLL_MS = 250;

/** The queues, made before the services are (they send to them). */
export interface LocalQueues {
  readonly 'webhook-deliveries': LocalDeliveryQueue;
  /** The stream failures queue's stand-in: what the events worker and the streams keep (`stream-failures.ts`). */
  readonly 'stream-failures': LocalStreamFailures;
}

/**
 * The local queues on the run's clock; with a data folder, the delivery queue keeps its messages in
 * a journal there (`webhook-deliveries.queue.jsonl`), so a restart hands again what was sent and not
 * yet done. The stream failures list is the run's own (shown on `/dev/webhooks`).
 */
export function localQueues(clock: Clock, dataDir?: string): LocalQueues {
  const journal = dataDir === undefined ? undefined : join(dataDir, 'webhook-deliveries.queue.jsonl');
  return {
    'webhook-deliveries': new LocalDeliveryQueue({ clock, journal }),
    'stream-failures': new LocalStreamFailures(() => clock.now()),
  };
}

/** The running workers. */
export interface LocalWorkers {
  readonly queues: LocalQueues;
  /**
   * Resolves once everything the writes so far cause has run: stream records read, deliveries
   * attempted that are due now (tests; the timers do it by themselves). A delivery the worker put
   * off waits for its time on the clock, an endpoint's pacing as a retry: tests move the clock.
   */
  settle(): Promise<void>;
  /** Run the scheduled workers now (tests move the clock, then call this instead of waiting a minute). */
  runScheduled(): Promise<void>;
  close(): Promise<void>;
}

export interface LocalWorkersOptions {
  readonly backend: EmbeddedDynamo['backend'];
  readonly connection: DynamoConnection;
  readonly tableNames: Record<TableName, string>;
  readonly queues: LocalQueues;
  /** The handler export of `functions/<name>.ts`. */
  readonly loadHandler: (fn: string) => Promise<unknown>;
  readonly log?: (message: string) => void;
  /** False: start none (`LocalServiceOptions.workers`); `settle` and `runScheduled` then do nothing. */
  readonly enabled?: boolean;
}

/** Start every worker on its local trigger. */
export async function startLocalWorkers(options: LocalWorkersOptions): Promise<LocalWorkers> {
  const log = options.log ?? ((message: string) => console.warn(message));
  const streams: LocalStreams[] = [];
  const scheduled: { handler: (event: ScheduledEvent) => Promise<unknown>; everyMinutes: number }[] = [];
  const timers: NodeJS.Timeout[] = [];
  const startedQueues: LocalDeliveryQueue[] = [];
  try {
    for (const worker of options.enabled === false ? [] : workers) {
      const handler = await options.loadHandler(worker.function);
      const { trigger } = worker;
      if (trigger.kind === 'stream') {
        const failures = options.queues['stream-failures'];
        // A replay of what is kept goes to the same handler.
        failures.setWorker(handler as OnRecords);
        streams.push(
          await startStreams({
            backend: options.backend,
            connection: options.connection,
            tableNames: options.tableNames,
            onRecords: handler as OnRecords,
            failures,
            pollIntervalMs: STREAM_POLL_MS,
            log,
          }),
        );
      } else if (trigger.kind === 'queue') {
        const queue = options.queues[trigger.queue];
        queue.setHandler(handler as QueueHandler);
        queue.start(QUEUE_POLL_MS);
        startedQueues.push(queue);
      } else {
        const run = handler as (event: ScheduledEvent) => Promise<unknown>;
        scheduled.push({ handler: run, everyMinutes: trigger.everyMinutes });
        const timer = setInterval(
          () => void run(scheduledEvent()).catch((error: unknown) => log(`${worker.function} failed: ${String(error)}`)),
          trigger.everyMinutes * 60_000,
        );
        timer.unref();
        timers.push(timer);
      }
    }
  } catch (error) {
    await stopAll(streams, startedQueues, timers);
    throw error;
  }

  const settle = async () => {
    // A delivery may make a stream record (none today) and a record deliveries: until both are quiet.
    for (let round = 0; round < 10; round++) {
      for (const s of streams) await s.settle();
      let ran = 0;
      // The timer's run under way first: its attempts are what the writes so far caused too.
      for (const q of startedQueues) ran += (await q.idle()) + (await q.runDue());
      if (ran === 0) return;
    }
  };
  return {
    queues: options.queues,
    settle,
    runScheduled: async () => {
      await settle();
      for (const { handler } of scheduled) await handler(scheduledEvent());
      await settle();
    },
    close: () => stopAll(streams, startedQueues, timers),
  };
}

async function stopAll(streams: LocalStreams[], queues: LocalDeliveryQueue[], timers: NodeJS.Timeout[]): Promise<void> {
  for (const timer of timers) clearInterval(timer);
  await Promise.all([...streams.map((s) => s.close()), ...queues.map((q) => q.stop())]);
}

/** The event EventBridge hands a scheduled function (its fields are not read). */
function scheduledEvent(): ScheduledEvent {
  return {
    version: '0',
    id: 'local',
    'detail-type': 'Scheduled Event',
    source: 'aws.events',
    account: '000000000000',
    time: new Date().toISOString(),
    region: 'local',
    resources: [],
    detail: {},
  };
}
