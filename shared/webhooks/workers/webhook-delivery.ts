/**
 * The `webhook-delivery` worker: one attempt per queue message: the endpoint's address checked and
 * pinned, the body signed with its secrets, a POST with a 15-second limit, the outcome recorded,
 * the next attempt enqueued on the schedule, the endpoint disabled after a 410 or 5 days of failures.
 */
import type { SQSBatchItemFailure, SQSBatchResponse, SQSEvent } from 'aws-lambda';
import * as z from 'zod/mini';
import { env } from '../../platform/env.js';
import { logger } from '../../platform/observability.js';
import { loadSecrets } from '../../platform/secrets.js';
import type { WorkerDefinition } from '../../platform/worker.js';
import type { DeliveryMessage } from '../delivery-model.js';
import { publishAttemptMetrics, webhookDeliveryServices } from '../delivery-services.js';

export const webhookDeliveryWorker = {
  function: 'webhook-delivery',
  summary: 'Attempts webhook deliveries: signs, sends, records, schedules the next attempt.',
  trigger: { kind: 'queue', queue: 'webhook-deliveries', batchSize: 10, maxConcurrency: 20 },
  data: {
    catalog: ['GetItem', 'UpdateItem'],
    webhooks: ['GetItem', 'UpdateItem', 'PutItem'],
    audit: ['PutItem'],
  },
  sendsTo: ['webhook-deliveries'],
  parts: ['webhookDelivery'],
  timeoutSeconds: 120,
} as const satisfies WorkerDefinition;

/** A message as the fan-out and the worker itself send it (`DeliveryMessage`). */
const Message = z.object({
  webhook_id: z.int().check(z.positive()),
  delivery_id: z.string().check(z.minLength(1), z.maxLength(256)),
  attempts: z.int().check(z.minimum(0)),
  due_at: z.iso.datetime(),
  waits: z.optional(z.int().check(z.minimum(0))),
  recover: z.optional(z.literal(true)),
});

/** A record's body as a message; undefined when it is not one (never retried: it would not parse the next time either). */
function parseDeliveryMessage(body: string): DeliveryMessage | undefined {
  try {
    const parsed = Message.safeParse(JSON.parse(body));
    return parsed.success ? parsed.data : undefined;
  } catch {
    return undefined;
  }
}

/**
 * The records of a batch side by side (each attempt may take 15 s; ten in a row would outlast the
 * function's timeout). A malformed body is logged and dropped; a record whose handling threw is
 * reported as a batch item failure, so the queue hands it again (and, after 5 receives, to the
 * dead-letter queue) while the others are done.
 */
export const handler = async (event: SQSEvent): Promise<SQSBatchResponse> => {
  await loadSecrets(env());
  const { deliveryAttempts } = webhookDeliveryServices();
  const batchItemFailures: SQSBatchItemFailure[] = [];
  await Promise.all(
    event.Records.map(async (record) => {
      const message = parseDeliveryMessage(record.body);
      if (!message) {
        logger.error('malformed webhook delivery message dropped', { message_id: record.messageId });
        return;
      }
      try {
        await deliveryAttempts.deliver(message);
      } catch (error) {
        logger.error('webhook delivery failed; the queue hands it again', {
          message_id: record.messageId,
          delivery_id: message.delivery_id,
          error: error as Error,
        });
        batchItemFailures.push({ itemIdentifier: record.messageId });
      }
    }),
  );
  publishAttemptMetrics();
  return { batchItemFailures };
};
