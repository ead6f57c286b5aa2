/**
 * The local run's stand-in for the `webhook-deliveries` SQS queue (`npm start`, tests): an
 * in-process {@link DeliveryQueue} that holds each message until it is due (capped at SQS's
 * 15-minute delay, as the SQS adapter is, so the worker's "early: send it again" path runs here
 * too), hands due messages to the delivery worker's handler as the same SQS event AWS builds
 * (`Records[].messageId`, `body`, `attributes.ApproximateReceiveCount`), in batches of 10, and
 * hands again the records the handler reports as batch item failures (or every record of a batch
 * whose handler threw), up to 5 receives: then the message is dead-lettered, logged and kept here
 * for inspection, as the dead-letter queue keeps it in AWS.
 *
 * Time is the given clock's, so a test moves a fake clock and calls {@link LocalDeliveryQueue.runDue};
 * the local runner calls {@link LocalDeliveryQueue.start} for a timer that does the same.
 */
import { randomUUID } from 'node:crypto';
import type { SQSBatchResponse, SQSEvent, SQSRecord } from 'aws-lambda';
import type { Clock } from '../../shared/platform/time.js';
import { logger } from '../../shared/platform/observability.js';
import type { DeliveryMessage } from '../../shared/webhooks/delivery-model.js';
import type { DeliveryQueue } from '../../shared/webhooks/ports.js';
import { queueDelaySeconds } from '../../shared/webhooks/sqs-delivery-queue.js';

/** What the queue hands its messages to: the `webhook-delivery` worker's handler. */
export type QueueHandler = (event: SQSEvent) => Promise<SQSBatchResponse | void>;

/** A message the queue holds. */
export interface HeldMessage {
  readonly messageId: string;
  readonly body: string;
  /** Epoch ms: visible from then on. */
  readonly dueMs: number;
  /** Times handed to the handler so far. */
  readonly receives: number;
  /** Epoch ms: when it was sent. */
  readonly sentMs: number;
}

export interface LocalDeliveryQueueOptions {
  readonly clock: Clock;
  /** The handler; may be given later ({@link LocalDeliveryQueue.setHandler}), as the services that build it may need this queue first. */
  readonly handler?: QueueHandler;
  /** Messages per handler call (the event source mapping's batch size). */
  readonly batchSize?: number;
  /** Handler calls at once (the mapping's maximum concurrency). */
  readonly maxConcurrency?: number;
  /** Receives before a message is dead-lettered (the queue's redrive policy). */
  readonly maxReceiveCount?: number;
  /** How long a failed message stays invisible before it is handed again (SQS: the visibility timeout; here 0 by default: the next run). */
  readonly visibilityTimeoutMs?: number;
}

/** The AWS defaults of the `webhook-deliveries` queue and its mapping (infra, shared/webhooks/workers/webhook-delivery.ts). */
const DEFAULTS = { batchSize: 10, maxConcurrency: 20, maxReceiveCount: 5, visibilityTimeoutMs: 0 } as const;

/** See the module comment. */
export class LocalDeliveryQueue implements DeliveryQueue {
  private readonly held: HeldMessage[] = [];
  private readonly dead: HeldMessage[] = [];
  private handler: QueueHandler | undefined;
  private timer: NodeJS.Timeout | undefined;
  private running: Promise<number> | undefined;
  private readonly settings: Required<Omit<LocalDeliveryQueueOptions, 'clock' | 'handler'>>;

  constructor(private readonly options: LocalDeliveryQueueOptions) {
    this.handler = options.handler;
    this.settings = {
      ...DEFAULTS,
      ...Object.fromEntries(Object.entries(options).filter(([, v]) => v !== undefined)),
    } as typeof this.settings;
  }

  setHandler(handler: QueueHandler): void {
    this.handler = handler;
  }

  async send(messages: readonly DeliveryMessage[]): Promise<void> {
    const nowMs = this.options.clock.now();
    for (const message of messages) {
      this.held.push({
        messageId: randomUUID(),
        body: JSON.stringify(message),
        dueMs: nowMs + queueDelaySeconds(message.due_at, nowMs) * 1000,
        receives: 0,
        sentMs: nowMs,
      });
    }
  }

  /** The messages waiting (not being handled), soonest first. */
  pending(): readonly HeldMessage[] {
    return [...this.held].sort((a, b) => a.dueMs - b.dueMs);
  }

  /** When the next waiting message is due (epoch ms); undefined when none waits. */
  nextDueAt(): number | undefined {
    return this.pending()[0]?.dueMs;
  }

  /** The messages handed {@link LocalDeliveryQueueOptions.maxReceiveCount} times without success. */
  deadLettered(): readonly HeldMessage[] {
    return [...this.dead];
  }

  /**
   * Hand every message due now to the handler, in batches, side by side up to the concurrency;
   * resolves when every batch is done. @returns how many messages were handed
   */
  async runDue(): Promise<number> {
    const handler = this.handler;
    if (!handler) throw new Error('the local delivery queue has no handler yet');
    const nowMs = this.options.clock.now();
    const due = this.held.filter((m) => m.dueMs <= nowMs);
    if (due.length === 0) return 0;
    for (const message of due) this.held.splice(this.held.indexOf(message), 1);
    const batches: HeldMessage[][] = [];
    for (let start = 0; start < due.length; start += this.settings.batchSize) {
      batches.push(due.slice(start, start + this.settings.batchSize).map((m) => ({ ...m, receives: m.receives + 1 })));
    }
    const next = () => batches.shift();
    const worker = async () => {
      for (let batch = next(); batch; batch = next()) await this.handBatch(handler, batch);
    };
    await Promise.all(Array.from({ length: Math.min(this.settings.maxConcurrency, batches.length) }, worker));
    return due.length;
  }

  /** Run {@link runDue} every `intervalMs` (one run at a time) until {@link stop}; the timer does not hold the process open. */
  start(intervalMs = 1_000): void {
    if (this.timer) return;
    this.timer = setInterval(() => {
      if (this.running) return;
      this.running = this.runDue()
        .catch((error: unknown) => {
          logger.error('local delivery queue run failed', { error: error as Error });
          return 0;
        })
        .finally(() => (this.running = undefined));
    }, intervalMs);
    this.timer.unref();
  }

  /** Resolves once the timer's run under way (if any) has ended; @returns how many messages it handed. */
  async idle(): Promise<number> {
    return (await this.running) ?? 0;
  }

  /** Stop the timer; resolves once a run under way has ended. */
  async stop(): Promise<void> {
    clearInterval(this.timer);
    this.timer = undefined;
    await this.running;
  }

  /** One handler call; its failed records go back (or to the dead letters). */
  private async handBatch(handler: QueueHandler, batch: HeldMessage[]): Promise<void> {
    let failed: Set<string>;
    try {
      const response = await handler({ Records: batch.map((m) => sqsRecord(m)) });
      failed = new Set((response?.batchItemFailures ?? []).map((f) => f.itemIdentifier));
    } catch (error) {
      // A handler that throws fails its whole batch, as in Lambda.
      logger.error('local delivery queue: the handler threw; its batch is handed again', { error: error as Error });
      failed = new Set(batch.map((m) => m.messageId));
    }
    const nowMs = this.options.clock.now();
    for (const message of batch.filter((m) => failed.has(m.messageId))) {
      if (message.receives >= this.settings.maxReceiveCount) {
        this.dead.push(message);
        logger.warn('webhook delivery message dead-lettered', { message_id: message.messageId, receives: message.receives });
      } else this.held.push({ ...message, dueMs: nowMs + this.settings.visibilityTimeoutMs });
    }
  }
}

/** A held message as Lambda's SQS event record carries it. */
function sqsRecord(message: HeldMessage): SQSRecord {
  return {
    messageId: message.messageId,
    receiptHandle: `local-${message.messageId}-${message.receives}`,
    body: message.body,
    attributes: {
      ApproximateReceiveCount: String(message.receives),
      SentTimestamp: String(message.sentMs),
      SenderId: 'local',
      ApproximateFirstReceiveTimestamp: String(message.sentMs),
    },
    messageAttributes: {},
    md5OfBody: '',
    eventSource: 'aws:sqs',
    eventSourceARN: 'arn:aws:sqs:local:000000000000:webhook-deliveries',
    awsRegion: 'local',
  };
}
