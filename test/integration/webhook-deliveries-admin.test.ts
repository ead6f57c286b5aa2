/**
 * The deliveries' operations over HTTP: list-webhook-deliveries (newest first, a page
 * at a time, every attempt with its response code), retry-webhook-delivery (due now, its message
 * queued with the current attempt count) and test-webhook (a `webhook.test` delivery of its own to
 * that endpoint only, whatever it subscribes to). The queue is a recording one, given through the
 * services' queue override (the local runner's port); the deliveries are in the real webhooks table.
 */
import { afterAll, beforeAll, describe, expect, test } from '@jest/globals';
import { isoTime } from '../../shared/platform/time.js';
import type { DeliveryRecord } from '../../shared/webhooks/delivery-model.js';
import { deliveryId } from '../../shared/webhooks/delivery-ids.js';
import { DynamoDeliveryStore } from '../../shared/webhooks/delivery-store.js';
import { afterAttempt, newDelivery } from '../../shared/webhooks/schedule.js';
import { describeWithStack } from '../support/describe-with-stack.js';
import { recordDeliveries, type RecordingQueue } from '../support/recording-queue.js';

const DELIVERY_FIELDS = [
  'attempts',
  'attempts_log',
  'created_at',
  'event_type',
  'id',
  'last_attempt_at',
  'last_status_code',
  'next_attempt_at',
  'payload',
  'status',
  'webhook_id',
];
const URL_OK = 'https://partner.example/hooks/gsts';
const MINUTE = 60_000;

describeWithStack('webhook deliveries over HTTP', ({ stack, admin }) => {
  let queue: RecordingQueue;
  let restore: () => void;
  beforeAll(async () => {
    ({ queue, restore } = recordDeliveries(stack));
    await stack.services.stores.catalog.putMember(1, 'acme-analyst', 'analyst');
  });
  afterAll(() => restore());

  const store = () => new DynamoDeliveryStore({ client: stack.services.client, tableName: stack.tableNames.webhooks });
  const endpoint = async (body: Record<string, unknown> = {}) => {
    const res = await admin.createWebhook({ org_id: 1, url: URL_OK, events: ['session.consumed'], ...body });
    expect(res.status).toBe(200);
    return res.body.data.id as number;
  };
  /** A delivery of the endpoint stored as the fan-out would, `ageMs` before now, after `failures` failed attempts. */
  const stored = async (webhookId: number, ageMs: number, failures = 0): Promise<DeliveryRecord> => {
    const at = stack.clock.now() - ageMs;
    let progress = newDelivery(at);
    const attempt_log = [];
    for (let i = 0; i < failures; i++) {
      const when = at + i * 1000;
      progress = afterAttempt(progress, { status: 503, elapsedMs: 42 }, when);
      attempt_log.push({ at: isoTime(when), status_code: 503, duration_ms: 42, error: null });
    }
    const record: DeliveryRecord = {
      id: deliveryId(webhookId, new Date(at).toISOString(), `record-${at}-${Math.random()}`),
      org_id: 1,
      webhook_id: webhookId,
      event_type: 'session.consumed',
      body: JSON.stringify({
        type: 'session.consumed',
        timestamp: isoTime(at),
        data: { token_id: `tok-${at}`, game_id: 101, metadata: { player: 'Zoë “Z”', level: 3, tags: ['a', 'b'] } },
      }),
      ...progress,
      created_at: isoTime(at),
      attempt_log,
    };
    await store().create([record]);
    return record;
  };
  const auditRecords = async (action: string) =>
    ((await admin.audit({ org_id: 1, audit_action: action })).body.data.records as any[]).filter((r) => r.action === action);

  describe('list-webhook-deliveries', () => {
    test('newest first, every field, attempts with their response codes; the payload as signed and sent (never a body field)', async () => {
      const id = await endpoint();
      const older = await stored(id, 60_000, 2);
      const newer = await stored(id, 1_000);
      const res = await admin.listWebhookDeliveries({ org_id: 1, webhook_id: id });
      expect(res.status).toBe(200);
      const { deliveries, next_cursor } = res.body.data;
      expect(next_cursor).toBeNull();
      expect(deliveries.map((d: any) => d.id)).toEqual([newer.id, older.id]);
      for (const d of deliveries) expect(Object.keys(d).sort()).toEqual([...DELIVERY_FIELDS].sort());
      expect(deliveries[1]).toEqual({
        id: older.id,
        webhook_id: id,
        event_type: 'session.consumed',
        status: 'failed',
        attempts: 2,
        last_status_code: 503,
        created_at: older.created_at,
        last_attempt_at: older.last_attempt_at,
        next_attempt_at: older.next_attempt_at,
        attempts_log: older.attempt_log,
        payload: JSON.parse(older.body),
      });
      // Serialized again, the payload is the signed body byte for byte.
      expect(deliveries.map((d: any) => JSON.stringify(d.payload))).toEqual([newer.body, older.body]);
      expect(deliveries[0]).toMatchObject({ status: 'pending', attempts: 0, last_status_code: null, attempts_log: [] });
      expect(JSON.stringify(res.body)).not.toContain('"body"');
    });

    test('a page at a time: limit, then the cursor, to the end', async () => {
      const id = await endpoint();
      const made = [];
      for (let i = 5; i >= 1; i--) made.push((await stored(id, i * 10_000)).id);
      const newestFirst = made.reverse();
      const first = (await admin.listWebhookDeliveries({ org_id: 1, webhook_id: id, limit: 2 })).body.data;
      expect(first.deliveries.map((d: any) => d.id)).toEqual(newestFirst.slice(0, 2));
      expect(first.next_cursor).toBe(newestFirst[1]);
      const second = (await admin.listWebhookDeliveries({ org_id: 1, webhook_id: id, limit: 2, cursor: first.next_cursor })).body.data;
      expect(second.deliveries.map((d: any) => d.id)).toEqual(newestFirst.slice(2, 4));
      const third = (await admin.listWebhookDeliveries({ org_id: 1, webhook_id: id, limit: 2, cursor: second.next_cursor })).body.data;
      expect(third.deliveries.map((d: any) => d.id)).toEqual(newestFirst.slice(4));
    });

    test('is audited with the endpoint', async () => {
      const id = await endpoint();
      await admin.listWebhookDeliveries({ org_id: 1, webhook_id: id });
      expect((await auditRecords('list-webhook-deliveries')).find((r) => r.webhook_id === id)).toMatchObject({
        status: 200,
        actor: 'acme-admin',
      });
    });

    test('another org’s endpoint or an unknown one: 404 (audited); its deliveries are not shown', async () => {
      const id = await endpoint();
      await stored(id, 1_000);
      const res = await admin.listWebhookDeliveries({ org_id: 2, webhook_id: id }, 'globex-admin');
      expect(res.status).toBe(404);
      expect(JSON.stringify(res.body)).not.toContain('msg_');
      expect((await admin.listWebhookDeliveries({ org_id: 1, webhook_id: 999_999 })).status).toBe(404);
      expect((await auditRecords('list-webhook-deliveries')).some((r) => r.webhook_id === 999_999 && r.status === 404)).toBe(true);
    });

    test('any tier (below Business: 404 for an unknown endpoint, not the tier); an analyst 403; bad parameters 400', async () => {
      expect((await admin.listWebhookDeliveries({ org_id: 3, webhook_id: 1 }, 'tiny-admin')).status).toBe(404);
      const id = await endpoint();
      expect((await admin.listWebhookDeliveries({ org_id: 1, webhook_id: id }, 'acme-analyst')).status).toBe(403);
      expect((await admin.listWebhookDeliveries({ org_id: 1 })).status).toBe(400);
      expect((await admin.listWebhookDeliveries({ org_id: 1, webhook_id: id, limit: 0 })).body.param).toBe('limit');
      expect((await admin.listWebhookDeliveries({ org_id: 1, webhook_id: id, cursor: 'nope' })).body.param).toBe('cursor');
    });
  });

  describe('retry-webhook-delivery', () => {
    test('an exhausted delivery: due now, pending, queued with its attempt count; audited', async () => {
      const id = await endpoint();
      const delivery = await stored(id, 120_000, 8);
      expect(delivery.status).toBe('exhausted');
      const sent = queue.messages.length;
      const res = await admin.retryWebhookDelivery({ org_id: 1, delivery_id: delivery.id });
      expect(res.status).toBe(200);
      expect(Object.keys(res.body.data).sort()).toEqual([...DELIVERY_FIELDS].sort());
      expect(res.body.data.payload).toEqual(JSON.parse(delivery.body));
      expect(res.body.data).toMatchObject({ id: delivery.id, status: 'pending', attempts: 8, last_status_code: 503 });
      const due = Date.parse(res.body.data.next_attempt_at);
      expect(Math.abs(due - stack.clock.now())).toBeLessThan(5_000);
      expect(queue.messages.slice(sent)).toEqual([
        { webhook_id: id, delivery_id: delivery.id, attempts: 8, due_at: res.body.data.next_attempt_at },
      ]);
      expect(await store().find(id, delivery.id)).toMatchObject({ status: 'pending', attempts: 8, attempt_log: delivery.attempt_log });
      expect((await auditRecords('retry-webhook-delivery')).find((r) => r.webhook_id === id)).toMatchObject({
        status: 200,
        actor: 'acme-admin',
      });
    });

    test('another org’s delivery, an unknown one, or not a delivery id: 404, 404, 400; nothing queued', async () => {
      const id = await endpoint();
      const delivery = await stored(id, 1_000, 1);
      const sent = queue.messages.length;
      expect((await admin.retryWebhookDelivery({ org_id: 2, delivery_id: delivery.id }, 'globex-admin')).status).toBe(404);
      expect(
        (await admin.retryWebhookDelivery({ org_id: 1, delivery_id: deliveryId(id, new Date(stack.clock.now()).toISOString(), 'never') }))
          .status,
      ).toBe(404);
      const bad = await admin.retryWebhookDelivery({ org_id: 1, delivery_id: 'msg_1' });
      expect(bad.status).toBe(400);
      expect(bad.body.param).toBe('delivery_id');
      expect(queue.messages.length).toBe(sent);
      expect((await store().find(id, delivery.id))!.status).toBe('failed');
    });

    test('only while no attempt is due or under way: else 409 delivery_attempt_pending, nothing queued or changed', async () => {
      const id = await endpoint();
      const claimed = await stored(id, 1_000, 1);
      await store().claim(claimed, 'another-worker', stack.clock.now(), stack.clock.now() + 30_000);
      const refusals = [
        ['due now (new)', await stored(id, 1_000)],
        ['due again (failed, its next attempt time passed)', await stored(id, 120_000, 1)],
        ['under way (claimed)', claimed],
      ] as const;
      const sent = queue.messages.length;
      for (const [what, delivery] of refusals) {
        const before = await store().find(id, delivery.id);
        const res = await admin.retryWebhookDelivery({ org_id: 1, delivery_id: delivery.id });
        expect([what, res.status, res.body.code]).toEqual([what, 409, 'delivery_attempt_pending']);
        expect(res.body.error).toContain('already has an attempt due or under way');
        expect(await store().find(id, delivery.id)).toEqual(before);
      }
      expect(queue.messages.length).toBe(sent);
    });

    test('accepted when ended, failed with its next attempt ahead, or stuck pending 15 minutes past due; each queued once', async () => {
      const id = await endpoint();
      const accepted = [await stored(id, 1_000, 1), await stored(id, 60_000, 8), await stored(id, 16 * 60_000)];
      expect(accepted.map((d) => d.status)).toEqual(['failed', 'exhausted', 'pending']);
      const sent = queue.messages.length;
      for (const delivery of accepted) {
        const res = await admin.retryWebhookDelivery({ org_id: 1, delivery_id: delivery.id });
        expect([delivery.status, res.status]).toEqual([delivery.status, 200]);
        // Accepted once: it is now due.
        expect((await admin.retryWebhookDelivery({ org_id: 1, delivery_id: delivery.id })).status).toBe(409);
      }
      expect(queue.messages.slice(sent).map((m) => [m.delivery_id, m.attempts])).toEqual(accepted.map((d) => [d.id, d.attempts]));
    });

    test('a paused endpoint: 409, nothing queued; below Business 403; an editor 403', async () => {
      const id = await endpoint();
      const delivery = await stored(id, 1_000, 1);
      await admin.updateWebhook({ id, org_id: 1, is_active: false });
      const sent = queue.messages.length;
      const paused = await admin.retryWebhookDelivery({ org_id: 1, delivery_id: delivery.id });
      expect(paused.status).toBe(409);
      expect(paused.body.error).toContain('paused');
      expect(queue.messages.length).toBe(sent);
      expect((await admin.retryWebhookDelivery({ org_id: 1, delivery_id: delivery.id }, 'acme-member')).status).toBe(403);
      expect((await admin.retryWebhookDelivery({ org_id: 3, delivery_id: delivery.id }, 'tiny-admin')).status).toBe(403);
    });
  });

  describe('the org’s hand sends: 60 a minute, test-webhook and retry-webhook-delivery together', () => {
    test('over the budget: 429 rate_limited with Retry-After to the minute’s end; nothing stored or queued for the refused', async () => {
      const id = await endpoint({ events: ['*'] });
      const retried = await stored(id, 60_000, 8);
      // Two seconds into a minute of its own.
      stack.clock.advance(MINUTE - (stack.clock.now() % MINUTE) + 2_000);
      const sent = queue.messages.length;
      const tests = await Promise.all(Array.from({ length: 59 }, () => admin.testWebhook({ id, org_id: 1 })));
      expect(tests.map((res) => res.status)).toEqual(Array(59).fill(200));
      expect((await admin.retryWebhookDelivery({ org_id: 1, delivery_id: retried.id })).status).toBe(200);

      const refused = [
        await admin.testWebhook({ id, org_id: 1 }),
        await admin.retryWebhookDelivery({ org_id: 1, delivery_id: retried.id }),
      ];
      for (const res of refused) {
        expect(res.status).toBe(429);
        expect(res.body).toMatchObject({ success: false, code: 'rate_limited' });
        expect(res.body.error).toContain('at most 60 hand-made webhook sends');
        // The seconds left of the minute (the stack's clock moves with the wall clock meanwhile).
        const retryAfter = Number(res.headers.get('retry-after'));
        expect(retryAfter >= 1 && retryAfter <= 58).toBe(true);
      }
      // Stored: the 59 tests (and the retried delivery), nothing more; queued: 59 + 1.
      const listed = await store().listByWebhook(id, 100);
      expect(listed.deliveries.filter((d) => d.event_type === 'webhook.test')).toHaveLength(59);
      expect(queue.messages.length - sent).toBe(60);
      expect((await store().find(id, retried.id))!.status).toBe('pending');

      // The next minute starts afresh.
      stack.clock.advance(MINUTE);
      expect((await admin.testWebhook({ id, org_id: 1 })).status).toBe(200);
    });
  });

  describe('test-webhook', () => {
    test('a webhook.test delivery to that endpoint only, whatever it subscribes to: stored, queued, listed; audited', async () => {
      const id = await endpoint({ events: ['key.created'] });
      const other = await endpoint({ events: ['*'] });
      const sent = queue.messages.length;
      const res = await admin.testWebhook({ id, org_id: 1 });
      expect(res.status).toBe(200);
      const delivery = res.body.data;
      expect(delivery).toMatchObject({ webhook_id: id, event_type: 'webhook.test', status: 'pending', attempts: 0, attempts_log: [] });
      expect(delivery.id).toMatch(new RegExp(`^msg_${id}_[0-9A-HJKMNP-TV-Z]{26}$`));
      expect(queue.messages.slice(sent)).toEqual([{ webhook_id: id, delivery_id: delivery.id, attempts: 0, due_at: delivery.created_at }]);
      const record = (await store().find(id, delivery.id))!;
      const body = JSON.parse(record.body);
      expect(body).toEqual({ type: 'webhook.test', timestamp: expect.any(String), data: { webhook_id: id } });
      expect(delivery.payload).toEqual(body);
      expect(JSON.stringify(delivery.payload)).toBe(record.body);
      // The event is dated when test-webhook was called; the delivery, when it was stored just after.
      expect(Date.parse(body.timestamp)).toBeLessThanOrEqual(Date.parse(delivery.created_at));
      expect((await admin.listWebhookDeliveries({ org_id: 1, webhook_id: id })).body.data.deliveries[0]).toEqual(delivery);
      expect((await admin.listWebhookDeliveries({ org_id: 1, webhook_id: other })).body.data.deliveries).toEqual([]);
      expect((await auditRecords('test-webhook')).find((r) => r.webhook_id === id)).toMatchObject({ status: 200, actor: 'acme-admin' });
    });

    test('each test is a delivery of its own (a new id)', async () => {
      const id = await endpoint();
      const a = (await admin.testWebhook({ id, org_id: 1 })).body.data.id;
      const b = (await admin.testWebhook({ id, org_id: 1 })).body.data.id;
      expect(a).not.toBe(b);
    });

    test('unknown or another org’s endpoint 404; paused 409; below Business 403; nothing queued', async () => {
      const id = await endpoint();
      const sent = queue.messages.length;
      expect((await admin.testWebhook({ id: 999_999, org_id: 1 })).status).toBe(404);
      expect((await admin.testWebhook({ id, org_id: 2 }, 'globex-admin')).status).toBe(404);
      expect((await admin.testWebhook({ id, org_id: 3 }, 'tiny-admin')).status).toBe(403);
      await admin.updateWebhook({ id, org_id: 1, is_active: false });
      expect((await admin.testWebhook({ id, org_id: 1 })).status).toBe(409);
      expect(queue.messages.length).toBe(sent);
    });
  });
});
