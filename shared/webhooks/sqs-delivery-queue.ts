/**
 * The SQS adapter of {@link DeliveryQueue}: each message delayed until its `due_at`, at most the
 * 15 minutes SQS allows (the delivery worker sends a message that arrives early again with what
 * remains), ten to a signed `SendMessageBatch` request (`sqs-queue.ts`).
 */
import type { DeliveryMessage } from './delivery-model.js';
import type { DeliveryQueue } from './ports.js';
import { SqsQueue } from './sqs-queue.js';

/** SQS's longest message delay. */
const MAX_QUEUE_DELAY_SECONDS = 900;
/** SQS takes at most 10 messages a request. */
const BATCH = 10;

/** The delay of a message due at `dueAt` (ISO 8601), sent at `nowMs`: within SQS's 0..900 s. */
export function queueDelaySeconds(dueAt: string, nowMs: number): number {
  const seconds = Math.ceil((Date.parse(dueAt) - nowMs) / 1000);
  return Math.min(MAX_QUEUE_DELAY_SECONDS, Math.max(0, seconds));
}

/** The body of a SendMessageBatch of `messages`, each delayed until it is due. */
export function sendBatchBody(queueUrl: string, messages: readonly DeliveryMessage[], nowMs: number): string {
  return JSON.stringify({
    QueueUrl: queueUrl,
    Entries: messages.map((message, i) => ({
      Id: String(i),
      MessageBody: JSON.stringify(message),
      DelaySeconds: queueDelaySeconds(message.due_at, nowMs),
    })),
  });
}

/** See the module comment. */
export class SqsDeliveryQueue implements DeliveryQueue {
  private readonly sqs: SqsQueue;

  constructor(
    private readonly queueUrl: string,
    region: string,
    private readonly now: () => number,
  ) {
    this.sqs = new SqsQueue(queueUrl, region);
  }

  async send(messages: readonly DeliveryMessage[]): Promise<void> {
    for (let start = 0; start < messages.length; start += BATCH) {
      const batch = messages.slice(start, start + BATCH);
      const answer = await this.sqs.post('SendMessageBatch', sendBatchBody(this.queueUrl, batch, this.now()));
      const failed = (JSON.parse(answer) as { Failed?: { Code?: string }[] }).Failed ?? [];
      if (failed.length > 0) throw new Error(`SQS refused ${failed.length} of ${batch.length} delivery messages: ${failed[0]!.Code}`);
    }
  }
}
