/**
 * The SQS adapter of {@link DeliveryQueue}: each message delayed until its `due_at`, at most the
 * 15 minutes SQS allows (the delivery worker sends a message that arrives early again with what
 * remains), ten to a request.
 */
import { SendMessageBatchCommand, type SQSClient } from '@aws-sdk/client-sqs';
import type { DeliveryMessage } from './delivery-model.js';
import type { DeliveryQueue } from './ports.js';

/** SQS's longest message delay. */
export const MAX_QUEUE_DELAY_SECONDS = 900;

/** The delay of a message due at `dueAt` (ISO 8601), sent at `nowMs`: within SQS's 0..900 s. */
export function queueDelaySeconds(dueAt: string, nowMs: number): number {
  const seconds = Math.ceil((Date.parse(dueAt) - nowMs) / 1000);
  return Math.min(MAX_QUEUE_DELAY_SECONDS, Math.max(0, seconds));
}

/** See the module comment. */
export class SqsDeliveryQueue implements DeliveryQueue {
  constructor(
    private readonly sqs: SQSClient,
    private readonly queueUrl: string,
    private readonly now: () => number,
  ) {}

  async send(messages: readonly DeliveryMessage[]): Promise<void> {
    for (let start = 0; start < messages.length; start += 10) {
      const batch = messages.slice(start, start + 10);
      const { Failed = [] } = await this.sqs.send(
        new SendMessageBatchCommand({
          QueueUrl: this.queueUrl,
          Entries: batch.map((message, i) => ({
            Id: String(i),
            MessageBody: JSON.stringify(message),
            DelaySeconds: queueDelaySeconds(message.due_at, this.now()),
          })),
        }),
      );
      if (Failed.length > 0) throw new Error(`SQS refused ${Failed.length} of ${batch.length} delivery messages: ${Failed[0]!.Code}`);
    }
  }
}
