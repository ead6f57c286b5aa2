/**
 * The `webhook-due` worker: every minute, the events that happen by time (`session.expired`,
 * `key.expiring`) whose minute has passed: each due item is checked against its token or key as it
 * is now (a consumed or revoked token is never announced as expired) and published.
 */
import type { ScheduledEvent } from 'aws-lambda';
import type { WorkerDefinition } from '../../platform/worker.js';
import type { DueItem, SourcedEvent } from '../delivery-model.js';
import { eventServices, type EventServices } from '../event-services.js';
import { keyExpiring, sessionExpired } from '../events-from-records.js';
import { stillExpiring } from '../stream-events.js';
import { statusAt } from '../../sessions/index.js';

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

/** The services one sweep runs on. */
export type DueDeps = Pick<EventServices, 'sink' | 'due' | 'keys' | 'tokens' | 'clock'>;

/** A due item's event source: the same item read again (a sweep retried) makes the same deliveries. */
const sourceOf = (item: DueItem): string => `due:${item.kind}:${item.ref}:${item.due_at}`;

/**
 * The sweep: the items due by now (of the last few minutes), each checked against its token or key
 * as it is now: `session.expired` only for a token that reads as expired (neither consumed nor
 * revoked), `key.expiring` only while the key still expires when the item was made for. The events
 * are published, then every item read is done with (published or found not to happen). A failure
 * leaves the items for the next sweep.
 */
export function webhookDueHandler(deps: () => DueDeps): (event?: ScheduledEvent) => Promise<void> {
  return async () => {
    const services = deps();
    const now = services.clock.now();
    const items = await services.due.due(now);
    if (items.length === 0) return;
    const expiring = items.filter((item) => item.kind === 'session.expired');
    const tokens = new Map((await services.tokens.getMany(expiring.map((item) => item.ref))).map((t) => [t.token, t]));
    const events = await Promise.all(
      items.map(async (item): Promise<SourcedEvent | undefined> => {
        if (item.kind === 'session.expired') {
          const token = tokens.get(item.ref);
          if (!token || statusAt(token, now) !== 'expired') return undefined;
          return { org_id: item.org_id, source_id: sourceOf(item), event: sessionExpired(token, now) };
        }
        const key = await services.keys.findInOrg(item.org_id, Number(item.ref));
        if (!stillExpiring(key, item)) return undefined;
        return { org_id: item.org_id, source_id: sourceOf(item), event: keyExpiring(key, Date.parse(item.due_at)) };
      }),
    );
    await services.sink.publish(events.filter((e) => e !== undefined));
    await Promise.all(items.map((item) => services.due.done(item)));
  };
}

/** The `webhook-due` function. */
export const handler = /* @__PURE__ */ webhookDueHandler(eventServices);
