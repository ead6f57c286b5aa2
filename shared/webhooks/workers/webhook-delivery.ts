/**
 * The `webhook-delivery` worker: one attempt per queue message: the endpoint's address checked and
 * pinned, the body signed with its secrets, a POST with a 15-second limit, the outcome recorded,
 * the next attempt enqueued on the schedule, the endpoint disabled after a 410 or 5 days of failures.
 */
import type { WorkerDefinition } from '../../platform/worker.js';

export const webhookDeliveryWorker = {
  function: 'webhook-delivery',
  summary: 'Attempts webhook deliveries: signs, sends, records, schedules the next attempt.',
  trigger: { kind: 'queue', queue: 'webhook-deliveries', batchSize: 10, maxConcurrency: 20 },
  data: {
    catalog: ['GetItem', 'UpdateItem'],
    webhooks: ['GetItem', 'UpdateItem', 'PutItem', 'DeleteItem'],
    audit: ['PutItem'],
  },
  sendsTo: ['webhook-deliveries'],
  parts: ['webhookDelivery'],
  timeoutSeconds: 120,
} as const satisfies WorkerDefinition;
