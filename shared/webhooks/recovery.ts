/**
 * Recovery: every event of a window that an endpoint has not received with a 2xx (`skipped` while
 * it was paused, `failed`, `exhausted`, or still `pending`), sent again with its first
 * `webhook-id` (docs/webhooks.md#recovery). The call writes no delivery: it reads the endpoint's
 * deliveries of the window (one partition, sorted by event time) and queues a recovery message per
 * delivery, which the delivery worker attempts at the endpoint's normal pace (its places and its
 * per-second share, `EndpointGate`), claiming each attempt by compare-and-swap on the delivery's
 * attempt count as every attempt does: a delivery already due, or recovered twice, is attempted
 * once. A delivery that succeeds meanwhile is turned away by its status. No AWS.
 */
import { isoTime } from '../platform/time.js';
import { DELIVERY_RETENTION_DAYS, type DeliveryMessage, type DeliveryRecord } from './delivery-model.js';
import { deliveryIdBounds, eventTimeOf } from './delivery-ids.js';
import type { DeliveryQueue, DeliveryStore } from './ports.js';
import type { WebhookRecovery } from './schemas.js';

/** Events a call sends at most: its queue sends (100 batches of 10) stay within a second or two. */
export const RECOVER_SEND_LIMIT = 1_000;

/**
 * Deliveries a call reads at most (succeeded ones included): about 10 MB of items, a few hundred
 * milliseconds of queries, whatever the window holds. A longer window is gone through in calls,
 * each naming where the next begins (`next_since`).
 */
export const RECOVER_READ_LIMIT = 10_000;

/** Deliveries per query page. */
const PAGE = 1_000;

const DAY_MS = 24 * 60 * 60 * 1000;

/** The window asked for. */
export interface RecoveryWindow {
  readonly since: string;
  readonly until?: string | undefined;
  readonly dry_run?: boolean | undefined;
}

/** The window as read at `nowMs`: since at most 30 days back, until at most now. */
export function windowAt(window: RecoveryWindow, nowMs: number): { readonly sinceMs: number; readonly untilMs: number } {
  const sinceMs = Math.max(Date.parse(window.since), nowMs - DELIVERY_RETENTION_DAYS * DAY_MS);
  const untilMs = Math.min(window.until === undefined ? nowMs : Date.parse(window.until), nowMs);
  return { sinceMs, untilMs };
}

/**
 * Find (and, unless a dry run, queue) what the endpoint has not received in the window.
 * Refusals (a paused endpoint, the org's hand sends) are the caller's, before this.
 */
export async function recover(
  deps: { readonly deliveries: DeliveryStore; readonly queue: DeliveryQueue },
  webhookId: number,
  window: RecoveryWindow,
  nowMs: number,
): Promise<WebhookRecovery> {
  const { sinceMs, untilMs } = windowAt(window, nowMs);
  const dryRun = window.dry_run === true;
  const unreceived: DeliveryRecord[] = [];
  let nextSinceMs: number | undefined;
  if (untilMs > sinceMs) {
    const range = deliveryIdBounds(webhookId, sinceMs, untilMs);
    let read = 0;
    let after: string | undefined;
    for (;;) {
      const page = await deps.deliveries.listRange(webhookId, range, Math.min(PAGE, RECOVER_READ_LIMIT - read), after);
      read += page.deliveries.length;
      unreceived.push(...page.deliveries.filter((d) => d.status !== 'succeeded'));
      if (unreceived.length > RECOVER_SEND_LIMIT) {
        nextSinceMs = eventTimeOf(unreceived[RECOVER_SEND_LIMIT]!.id);
        break;
      }
      if (page.cursor === null) break;
      if (read >= RECOVER_READ_LIMIT) {
        // Deliveries of the same millisecond as the last one read may follow it: the next call reads them.
        nextSinceMs = eventTimeOf(page.cursor);
        break;
      }
      after = page.cursor;
    }
  }
  const sending = unreceived.slice(0, RECOVER_SEND_LIMIT);
  if (!dryRun) {
    const messages: DeliveryMessage[] = sending.map((d) => ({
      webhook_id: webhookId,
      delivery_id: d.id,
      attempts: d.attempts,
      due_at: isoTime(nowMs),
      recover: true,
    }));
    await deps.queue.send(messages);
  }
  return {
    webhook_id: webhookId,
    since: isoTime(sinceMs),
    until: isoTime(Math.max(untilMs, sinceMs)),
    dry_run: dryRun,
    count: sending.length,
    next_since: nextSinceMs === undefined ? null : isoTime(nextSinceMs),
  };
}
