/**
 * The `webhook-due` worker: every minute, the events that happen by time (`session.expired`,
 * `key.expiring`) whose minute has passed: each due item is checked against its token or key as it
 * is now (a consumed or revoked token is never announced as expired) and published.
 */
import type { WorkerDefinition } from '../../platform/worker.js';

export const webhookDueWorker = {
  function: 'webhook-due',
  summary: 'Every minute, publishes session.expired and key.expiring for what came due.',
  trigger: { kind: 'schedule', everyMinutes: 1 },
  data: {
    tokens: ['BatchGetItem'],
    keys: ['GetItem'],
    catalog: ['Query', 'GetItem'],
    webhooks: ['Query', 'PutItem', 'DeleteItem'],
  },
  sendsTo: ['webhook-deliveries'],
  parts: ['webhookEvents'],
  timeoutSeconds: 60,
} as const satisfies WorkerDefinition;
