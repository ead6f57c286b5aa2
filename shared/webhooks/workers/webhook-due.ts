/**
 * The `webhook-due` worker: every minute, the events that happen by time (`session.expired`,
 * `key.expiring`) whose minute has passed: each due item is checked against its token or key as it
 * is now (a consumed or revoked token is never announced as expired) and published. The sweep
 * itself, its chunks, retries and watermark, is `due-sweep.ts`.
 */
import type { ScheduledEvent } from 'aws-lambda';
import type { WorkerDefinition } from '../../platform/worker.js';
import { sweepDue, type DueSweepDeps } from '../due-sweep.js';
import { eventServices } from '../event-services.js';

export const webhookDueWorker = {
  function: 'webhook-due',
  summary: 'Every minute, publishes session.expired and key.expiring for what came due.',
  trigger: { kind: 'schedule', everyMinutes: 1 },
  data: {
    tokens: ['BatchGetItem'],
    keys: ['GetItem'],
    catalog: ['Query', 'GetItem'],
    webhooks: ['Query', 'GetItem', 'PutItem', 'DeleteItem', 'BatchWriteItem'],
  },
  sendsTo: ['webhook-deliveries'],
  parts: ['webhookEvents'],
  timeoutSeconds: 60,
} as const satisfies WorkerDefinition;

/** The services one sweep runs on. */
export type DueDeps = DueSweepDeps;

/**
 * The sweep (`due-sweep.ts`): from the oldest minute not yet swept whole to now, each item checked
 * against its token or key as it is now, its event handed on, then the item deleted. A failure
 * keeps what was not handed on for the next run.
 */
export function webhookDueHandler(deps: () => DueDeps): (event?: ScheduledEvent) => Promise<void> {
  return async () => {
    await sweepDue(deps());
  };
}

/** The `webhook-due` function. */
export const handler = /* @__PURE__ */ webhookDueHandler(eventServices);
