/**
 * A worker: a function that no client calls, run by AWS on what happens (a DynamoDB stream, a
 * queue, the clock). Declared once in its feature's `workers/` module, beside its handler, and
 * listed in THE workers table (`shared/workers.ts`) that the CDK stack (function, trigger, IAM,
 * alarms) and the local runner (the same handler on the local stand-ins of streams, queue and
 * schedule) both read, as the routes table is read for the operations.
 */
import type { TableName } from '../tables.js';
import type { EnvPart } from './env-parts.js';
import type { DataAccess } from './route.js';

/** The queues of the service (SQS in AWS, with a dead-letter queue each; in-process locally). */
export type QueueName = 'webhook-deliveries';

/**
 * The queue no worker reads: where the events worker keeps a stream record it cannot read, and where
 * the stream triggers record a batch they gave up on (SQS in AWS, read by on-call; a list locally).
 */
export type FailureQueueName = 'stream-failures';

/** A queue a worker may send to. */
export type SendQueue = QueueName | FailureQueueName;

/** What runs a worker. */
export type WorkerTrigger =
  | {
      readonly kind: 'stream';
      /** The tables whose streams it reads (each must declare a `stream` in shared/tables.ts). */
      readonly tables: readonly TableName[];
      /**
       * Per table, the only records it is invoked for: those whose partition key begins with this
       * (the event source mapping's filter in AWS, the same test locally). Absent: every record.
       */
      readonly keyPrefix?: Partial<Record<TableName, string>>;
    }
  | {
      readonly kind: 'queue';
      readonly queue: QueueName;
      /** Messages per invocation. */
      readonly batchSize: number;
      /** Instances at most (the event source mapping's maximum concurrency). */
      readonly maxConcurrency: number;
    }
  | { readonly kind: 'schedule'; readonly everyMinutes: number };

/** One worker. */
export interface WorkerDefinition {
  /** Function name: `functions/<function>.ts` exports its handler. */
  readonly function: string;
  /** One line for docs and the dashboard. */
  readonly summary: string;
  readonly trigger: WorkerTrigger;
  /** DynamoDB actions per table (least-privilege IAM, as for routes). */
  readonly data: DataAccess;
  /** The queues it sends to. */
  readonly sendsTo?: readonly SendQueue[];
  /** The parts of the services it builds (its environment, as for routes). */
  readonly parts: readonly Exclude<EnvPart, 'http'>[];
  /** Longest run of one invocation, in seconds. */
  readonly timeoutSeconds: number;
}
