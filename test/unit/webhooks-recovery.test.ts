/**
 * Recovery's reading of a window (shared/webhooks/recovery.ts) on an in-memory delivery store that
 * answers range queries as DynamoDB does (sort keys between the bounds, ascending, `Limit` items a
 * page): which deliveries a window holds (its bounds by event time, `since` inclusive, `until`
 * exclusive), what is sent (all but `succeeded`, as recovery messages with the attempt count read),
 * the limits per call and where the next call begins (`next_since`), the 30-day clamp, and a dry run.
 */
import { describe, expect, test } from '@jest/globals';
import { deliveryId, eventTimeOf } from '../../shared/webhooks/delivery-ids.js';
import type { DeliveryMessage, DeliveryRecord } from '../../shared/webhooks/delivery-model.js';
import type { DeliveryQueue, DeliveryStore } from '../../shared/webhooks/ports.js';
import { recover, RECOVER_READ_LIMIT, RECOVER_SEND_LIMIT, windowAt } from '../../shared/webhooks/recovery.js';
import type { DeliveryStatus } from '../../shared/webhooks/schedule.js';

const WEBHOOK = 7;
const T0 = Date.parse('2026-12-01T10:00:00.000Z');
const DAY = 24 * 60 * 60_000;
const iso = (ms: number) => new Date(ms).toISOString();

/** A delivery of an event at `atMs` with this status. */
function delivery(atMs: number, status: DeliveryStatus, n: number, attempts = status === 'skipped' ? 0 : 1): DeliveryRecord {
  return {
    id: deliveryId(WEBHOOK, iso(atMs), `source-${n}`),
    org_id: 1,
    webhook_id: WEBHOOK,
    event_type: 'session.consumed',
    body: '{}',
    status,
    attempts,
    last_status_code: null,
    created_at: iso(atMs),
    last_attempt_at: null,
    next_attempt_at: null,
    attempt_log: [],
  };
}

/** The range query of the DynamoDB adapter, over a sorted array; counts the pages read. */
function storeOf(deliveries: readonly DeliveryRecord[]) {
  const sorted = [...deliveries].sort((a, b) => (a.id < b.id ? -1 : 1));
  const store = {
    pages: 0,
    async listRange(_webhookId: number, range: { from: string; to: string }, limit: number, after?: string) {
      store.pages += 1;
      const inRange = sorted.filter((d) => d.id >= range.from && d.id <= range.to && (after === undefined || d.id > after));
      const page = inRange.slice(0, limit);
      return { deliveries: page, cursor: inRange.length > limit ? page[page.length - 1]!.id : null };
    },
  };
  return store;
}

function queueOf() {
  const sent: DeliveryMessage[] = [];
  const queue: DeliveryQueue = { send: async (messages) => void sent.push(...messages) };
  return { queue, sent };
}

async function recovered(deliveries: readonly DeliveryRecord[], window: Parameters<typeof recover>[2], nowMs = T0 + DAY) {
  const store = storeOf(deliveries);
  const { queue, sent } = queueOf();
  const answer = await recover({ deliveries: store as unknown as DeliveryStore, queue }, WEBHOOK, window, nowMs);
  return { answer, sent, pages: store.pages };
}

describe('recovery of a window', () => {
  test('by event time: since inclusive, until exclusive; every status but succeeded is sent, with the attempt count read', async () => {
    const all = [
      delivery(T0 - 1, 'skipped', 1),
      delivery(T0, 'skipped', 2),
      delivery(T0 + 1_000, 'failed', 3, 2),
      delivery(T0 + 2_000, 'succeeded', 4),
      delivery(T0 + 3_000, 'exhausted', 5, 8),
      delivery(T0 + 4_000, 'pending', 6, 0),
      delivery(T0 + 5_000, 'skipped', 7),
    ];
    const { answer, sent } = await recovered(all, { since: iso(T0), until: iso(T0 + 5_000) });
    expect(answer).toEqual({ webhook_id: WEBHOOK, since: iso(T0), until: iso(T0 + 5_000), dry_run: false, count: 4, next_since: null });
    expect(sent).toEqual(
      [all[1]!, all[2]!, all[4]!, all[5]!].map((d) => ({
        webhook_id: WEBHOOK,
        delivery_id: d.id,
        attempts: d.attempts,
        due_at: iso(T0 + DAY),
        recover: true,
      })),
    );
  });

  test('a dry run counts the same and sends nothing', async () => {
    const all = [delivery(T0, 'skipped', 1), delivery(T0 + 1, 'failed', 2)];
    const { answer, sent } = await recovered(all, { since: iso(T0), dry_run: true });
    expect(answer).toMatchObject({ dry_run: true, count: 2, next_since: null, until: iso(T0 + DAY) });
    expect(sent).toEqual([]);
  });

  test(`more than ${RECOVER_SEND_LIMIT} to send: the first ${RECOVER_SEND_LIMIT}, and next_since is the event time of the one after`, async () => {
    const all = Array.from({ length: RECOVER_SEND_LIMIT + 5 }, (_, i) => delivery(T0 + i * 10, 'skipped', i));
    const { answer, sent } = await recovered(all, { since: iso(T0) });
    expect(answer.count).toBe(RECOVER_SEND_LIMIT);
    expect(sent).toHaveLength(RECOVER_SEND_LIMIT);
    expect(answer.next_since).toBe(iso(T0 + RECOVER_SEND_LIMIT * 10));
    // The next call, from there, sends the rest.
    const next = await recovered(all.slice(RECOVER_SEND_LIMIT), { since: answer.next_since! });
    expect(next.answer).toMatchObject({ count: 5, next_since: null });
  });

  test(`a window of more than ${RECOVER_READ_LIMIT} deliveries is read in calls: next_since where the reading stopped`, async () => {
    const all = [
      ...Array.from({ length: RECOVER_READ_LIMIT + 3 }, (_, i) => delivery(T0 + i, 'succeeded', i)),
      delivery(T0 + RECOVER_READ_LIMIT + 10, 'skipped', -1),
    ];
    const { answer, sent, pages } = await recovered(all, { since: iso(T0) });
    expect(answer).toMatchObject({ count: 0 });
    expect(sent).toEqual([]);
    expect(pages).toBe(RECOVER_READ_LIMIT / 1_000);
    expect(answer.next_since).toBe(iso(eventTimeOf(all[RECOVER_READ_LIMIT - 1]!.id)!));
    const next = await recovered(all, { since: answer.next_since! });
    expect(next.answer).toMatchObject({ count: 1, next_since: null });
  });

  test('since more than 30 days back reads as 30 days back, until beyond now as now; a window emptied by that reads nothing', async () => {
    const now = T0 + 40 * DAY;
    expect(windowAt({ since: iso(T0), until: iso(now + DAY) }, now)).toEqual({ sinceMs: now - 30 * DAY, untilMs: now });
    const { answer, pages } = await recovered([delivery(T0, 'skipped', 1)], { since: iso(T0), until: iso(T0 + DAY) }, now);
    expect(answer).toMatchObject({ count: 0, since: iso(now - 30 * DAY), until: iso(now - 30 * DAY), next_since: null });
    expect(pages).toBe(0);
  });
});
