/**
 * The service's queues (shared/platform/worker.ts `QueueName`), each with a dead-letter queue, and the
 * dead-letter queue of the stream triggers: what a worker could not process ends up in one of them,
 * kept 14 days for on-call to look at and redrive (docs/runbook.md#webhook-dead-letters).
 */
import { Duration, RemovalPolicy } from 'aws-cdk-lib';
import { Queue, QueueEncryption } from 'aws-cdk-lib/aws-sqs';
import { Construct } from 'constructs';
import type { EnvVar } from '../shared/platform/env-parts.js';
import type { QueueName, SendQueue, WorkerDefinition } from '../shared/platform/worker.js';
import { pascalCase } from './construct-ids.js';

/** The variable that carries each queue's URL to the functions that send to it or read it. */
export const QUEUE_URL_VARS: Readonly<Record<QueueName, EnvVar>> = { 'webhook-deliveries': 'WEBHOOK_DELIVERY_QUEUE_URL' };

/** The variable that carries the URL of each queue a worker may send to (`sendsTo`): the service's queues and the stream failures queue. */
export const SEND_URL_VARS: Readonly<Record<SendQueue, EnvVar>> = {
  ...QUEUE_URL_VARS,
  'stream-failures': 'WEBHOOK_STREAM_FAILURES_QUEUE_URL',
};

/** Receives before a message goes to its queue's dead-letter queue (a delivery that failed five times in a row to be handled). */
export const MAX_RECEIVE_COUNT = 5;
/** SQS's longest retention: a dead letter waits two weeks for on-call, and a queued message survives a long outage of its worker. */
const RETENTION = Duration.days(14);
/**
 * A message's visibility timeout over its consumer's function timeout: AWS's advice for an SQS
 * event source, so that a batch whose invocation is retried after throttling is not delivered again
 * while the first invocation still runs.
 */
export const VISIBILITY_PER_TIMEOUT = 6;

/** Settings every queue of the service shares: encrypted by SQS (no key to manage), TLS only, kept 14 days. */
const COMMON = {
  encryption: QueueEncryption.SQS_MANAGED,
  enforceSSL: true,
  retentionPeriod: RETENTION,
  // Messages are work in flight: they go with the stack. The deliveries they stand for stay in the
  // retained webhooks table, where an admin's retry-webhook-delivery starts one again.
  removalPolicy: RemovalPolicy.DESTROY,
} as const;

/** One queue of the service and its dead-letter queue. */
export interface ServiceQueue {
  readonly queue: Queue;
  readonly deadLetters: Queue;
}

/** The queues of the service, by their `QueueName`, and the stream triggers' dead-letter queue. */
export class ServiceQueues extends Construct {
  readonly queues: Readonly<Record<QueueName, ServiceQueue>>;
  /**
   * The stream failures queue: where the events worker keeps a record it cannot read (the record
   * and the error), and where a stream trigger records a batch it gave up on (its shard and
   * sequence numbers, not the records). No worker reads it: on-call does (docs/runbook.md).
   */
  readonly streamFailures: Queue;

  constructor(scope: Construct, id: string, props: { readonly workers: readonly WorkerDefinition[] }) {
    super(scope, id);
    const names = Object.keys(QUEUE_URL_VARS) as QueueName[];
    this.queues = Object.fromEntries(names.map((name) => [name, this.queueOf(name, props.workers)])) as Record<QueueName, ServiceQueue>;
    this.streamFailures = new Queue(this, 'StreamFailures', COMMON);
  }

  /** The queue a worker's `sendsTo` names. */
  sendTarget(name: SendQueue): Queue {
    return name === 'stream-failures' ? this.streamFailures : this.queues[name].queue;
  }

  /** A queue whose visibility timeout is {@link VISIBILITY_PER_TIMEOUT} times its slowest consumer's timeout. */
  private queueOf(name: QueueName, workers: readonly WorkerDefinition[]): ServiceQueue {
    const consumers = workers.filter((w) => w.trigger.kind === 'queue' && w.trigger.queue === name);
    if (consumers.length === 0) throw new Error(`queue ${name} has no worker reading it`);
    const timeout = Math.max(...consumers.map((w) => w.timeoutSeconds));
    const id = pascalCase(name);
    const deadLetters = new Queue(this, `${id}DeadLetters`, COMMON);
    const queue = new Queue(this, id, {
      ...COMMON,
      visibilityTimeout: Duration.seconds(VISIBILITY_PER_TIMEOUT * timeout),
      deadLetterQueue: { queue: deadLetters, maxReceiveCount: MAX_RECEIVE_COUNT },
    });
    return { queue, deadLetters };
  }
}
