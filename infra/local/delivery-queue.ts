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
 * Handler calls run side by side up to the mapping's maximum concurrency (20), each batch as soon
 * as a call is free, as Lambda's poller does: a batch held by a slow receiver holds one call, never
 * the queue (the endpoint gate limits how many calls one endpoint can hold).
 *
 * Given a `journal` file (`npm start`: in the local data folder), the queue keeps what it holds
 * there as SQS keeps it in AWS: a message is written when sent, and forgotten once its handler
 * call succeeded, so a restart hands again every message sent and not yet done (one whose call
 * was under way included, as SQS hands it again after its visibility timeout), and no delivery
 * waits forever for a message a restart lost.
 *
 * Time is the given clock's, so a test moves a fake clock and calls {@link LocalDeliveryQueue.runDue};
 * the local runner calls {@link LocalDeliveryQueue.start} for a timer that does the same.
 */
import { randomUUID } from 'node:crypto';
import { QueueJournal } from './queue-journal.js';
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
  /** The file that keeps the held messages across restarts (`queue-journal.ts`); memory only when absent. */
  readonly journal?: string;
}

/** The AWS defaults of the `webhook-deliveries` queue and its mapping (infra, shared/webhooks/workers/webhook-delivery.ts). */
const DEFAULTS = { batchSize: 10, maxConcurrency: 20, maxReceiveCount: 5, visibilityTimeoutMs: 0 } as const;

type Settings = Required<Omit<LocalDeliveryQueueOptions, 'clock' | 'handler' | 'journal'>>;

/** See the module comment. */
export class LocalDeliveryQueue implements DeliveryQueue {
  private readonly held: HeldMessage[] = [];
  /** Handed to a handler call (or waiting for one), not yet done. */
  private readonly taken = new Map<string, HeldMessage>();
  private readonly dead: HeldMessage[] = [];
  private handler: QueueHandler | undefined;
  private timer: NodeJS.Timeout | undefined;
  /** Handler calls under way. */
  private active = 0;
  /** Batches waiting for a free call, in order. */
  private readonly waiting: (() => void)[] = [];
  /** Every batch's call under way or waiting, each resolving to its message count. */
  private readonly calls = new Set<Promise<number>>();
  private readonly journal: QueueJournal | undefined;
  private readonly settings: Settings;

  constructor(private readonly options: LocalDeliveryQueueOptions) {
    this.handler = options.handler;
    this.settings = {
      ...DEFAULTS,
      ...Object.fromEntries(Object.entries(options).filter(([key, v]) => v !== undefined && key in DEFAULTS)),
    } as Settings;
    if (options.journal) {
      this.journal = new QueueJournal(options.journal);
      const kept = this.journal.load();
      this.held.push(...kept.held);
      this.dead.push(...kept.dead);
    }
  }

  setHandler(handler: QueueHandler): void {
    this.handler = handler;
  }

  async send(messages: readonly DeliveryMessage[]): Promise<void> {
    const nowMs = this.options.clock.now();
    const sent = messages.map((message) => ({
      messageId: randomUUID(),
      body: JSON.stringify(message),
      dueMs: nowMs + queueDelaySeconds(message.due_at, nowMs) * 1000,
      receives: 0,
      sentMs: nowMs,
    }));
    // Kept before it is acknowledged, as SQS answers a send once the message is stored.
    this.journal?.held(sent);
    this.held.push(...sent);
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
   * Hand every message due now to the handler, in batches, side by side up to the concurrency (with
   * the timer's calls); resolves when every one of these batches is done. @returns how many messages were handed
   */
  async runDue(): Promise<number> {
    const handler = this.handler;
    if (!handler) throw new Error('the local delivery queue has no handler yet');
    const due = this.take(Infinity);
    const batches: HeldMessage[][] = [];
    for (let start = 0; start < due.length; start += this.settings.batchSize)
      batches.push(due.slice(start, start + this.settings.batchSize));
    await Promise.all(batches.map((batch) => this.call(handler, batch)));
    return due.length;
  }

  /**
   * Every `intervalMs` until {@link stop}, start a handler call for each batch due while calls are
   * free, without waiting for the calls under way; the timer does not hold the process open.
   */
  start(intervalMs = 1_000): void {
    if (this.timer) return;
    this.timer = setInterval(() => this.fill(), intervalMs);
    this.timer.unref();
  }

  /**
   * Resolves once every handler call under way has ended, those started meanwhile included.
   * @returns how many messages they handed
   */
  async idle(): Promise<number> {
    const seen = new Set<Promise<number>>();
    let handed = 0;
    for (;;) {
      const open = [...this.calls].filter((call) => !seen.has(call));
      if (open.length === 0) return handed;
      for (const call of open) seen.add(call);
      for (const count of await Promise.all(open)) handed += count;
    }
  }

  /** Stop the timer; resolves once the calls under way have ended. */
  async stop(): Promise<void> {
    clearInterval(this.timer);
    this.timer = undefined;
    await this.idle();
  }

  /** Start a call for each batch due, while calls are free (the timer's tick). */
  private fill(): void {
    const handler = this.handler;
    if (!handler) return;
    while (this.active < this.settings.maxConcurrency && this.waiting.length === 0) {
      const batch = this.take(this.settings.batchSize);
      if (batch.length === 0) return;
      void this.call(handler, batch);
    }
  }

  /** Up to `limit` messages due now, soonest first, taken from the held ones (one more receive each). */
  private take(limit: number): HeldMessage[] {
    const nowMs = this.options.clock.now();
    const due = this.held
      .filter((m) => m.dueMs <= nowMs)
      .sort((a, b) => a.dueMs - b.dueMs)
      .slice(0, limit);
    return due.map((message) => {
      this.held.splice(this.held.indexOf(message), 1);
      const handed = { ...message, receives: message.receives + 1 };
      this.taken.set(handed.messageId, handed);
      return handed;
    });
  }

  /** One batch's handler call, once a call is free. @returns the batch's size */
  private call(handler: QueueHandler, batch: HeldMessage[]): Promise<number> {
    const run = (async () => {
      if (this.active < this.settings.maxConcurrency) this.active++;
      else await new Promise<void>((free) => this.waiting.push(free));
      try {
        await this.handBatch(handler, batch);
      } finally {
        // A free call goes to the next batch waiting, if any.
        const next = this.waiting.shift();
        if (next) next();
        else this.active--;
      }
      return batch.length;
    })();
    this.calls.add(run);
    const forget = () => this.calls.delete(run);
    run.then(forget, forget);
    return run;
  }

  /** One handler call; its failed records go back (or to the dead letters), the others are done. */
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
    const back: HeldMessage[] = [];
    const dead: HeldMessage[] = [];
    for (const message of batch) {
      this.taken.delete(message.messageId);
      if (!failed.has(message.messageId)) continue;
      if (message.receives >= this.settings.maxReceiveCount) {
        dead.push(message);
        logger.warn('webhook delivery message dead-lettered', { message_id: message.messageId, receives: message.receives });
      } else back.push({ ...message, dueMs: nowMs + this.settings.visibilityTimeoutMs });
    }
    this.journal?.settled(
      batch.filter((m) => !failed.has(m.messageId)).map((m) => m.messageId),
      back,
      dead,
      () => [...this.held, ...back, ...this.taken.values()],
      () => [...this.dead, ...dead],
    );
    this.held.push(...back);
    this.dead.push(...dead);
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
