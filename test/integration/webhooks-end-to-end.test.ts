/**
 * Webhooks end to end, as `npm start` runs them, on the backend of this tier (dynalite's stream
 * stand-in, or DynamoDB Local's own streams): an org registers the development receiver
 * (`/dev/webhooks`), and real calls through the front reach it as signed deliveries that the stock
 * `standardwebhooks` library verifies: the write, its stream record, the `webhook-events` worker,
 * the deliveries table and the local queue, the `webhook-delivery` worker's signed POST. Then what
 * a partner sees of it: the deliveries list, a failing endpoint's schedule, a retry by hand, a
 * test event, and `session.expired` from the `webhook-due` worker (never for a consumed token).
 */
import { beforeAll, expect, test } from '@jest/globals';
import { describeWithStack } from '../support/describe-with-stack.js';
import { createTestKey, UNLIMITED, type TestKey } from '../support/keys.js';
import { sessionsApi } from '../support/sessions-api.js';

describeWithStack(
  `webhooks end to end, on ${process.env.DYNAMODB_BACKEND === 'local' ? 'DynamoDB Local' : 'dynalite'}`,
  ({ stack, admin }) => {
    let partner: TestKey;
    let receiver: number;
    const api = () => sessionsApi(stack, () => partner.raw);
    /** What arrived at `/dev/webhooks/<name>`, oldest first, once every delivery due now has run. */
    const arrivedAt = async (name: string) => {
      await stack.workers.settle();
      return stack.devWebhooks
        .arrived()
        .filter((d) => d.path.startsWith(`/dev/webhooks/${name}`))
        .reverse()
        .map((d) => ({ ...d, event: JSON.parse(d.body) as { type: string; data: Record<string, unknown> } }));
    };
    const deliveries = async (webhookId: number) =>
      (await admin.listWebhookDeliveries({ org_id: 1, webhook_id: webhookId })).body.data.deliveries as Record<string, any>[];

    beforeAll(async () => {
      partner = await createTestKey(stack, UNLIMITED);
      const res = await admin.createWebhook({ org_id: 1, url: `${stack.baseUrl}/dev/webhooks/e2e`, events: ['*'] });
      expect(res.status).toBe(200);
      receiver = res.body.data.id;
    });

    test('a consumed token reaches the receiver as session.consumed, signed and verified; the deliveries list shows it succeeded', async () => {
      const token = await api().mint({ game_id: 101, external_ref: 'order-e2e' });
      expect((await api().consume({ token })).status).toBe(200);
      const consumed = (await arrivedAt('e2e')).filter((d) => d.event.type === 'session.consumed');
      expect(consumed).toHaveLength(1);
      expect(consumed[0]).toMatchObject({ verified: true, answered: 204 });
      expect(consumed[0]!.event.data).toMatchObject({
        token,
        org_id: 1,
        game_id: 101,
        external_ref: 'order-e2e',
        key_id: partner.record.id,
      });
      const listed = (await deliveries(receiver)).find((d) => d.id === consumed[0]!.webhook_id);
      expect(listed).toMatchObject({ event_type: 'session.consumed', status: 'succeeded', attempts: 1, last_status_code: 204 });
    });

    test('key administration reaches it too (key.created, with the admin as actor)', async () => {
      const created = await admin.create({ org_id: 1, name: 'e2e key' });
      expect(created.status).toBe(200);
      const events = (await arrivedAt('e2e')).filter((d) => d.event.type === 'key.created' && d.event.data.id === created.body.data.id);
      expect(events).toHaveLength(1);
      expect(events[0]).toMatchObject({ verified: true });
      expect(events[0]!.event.data).toMatchObject({ name: 'e2e key', actor: 'acme-admin' });
      expect(JSON.stringify(events[0]!.event)).not.toContain(created.body.data.key);
    });

    test('a failing endpoint: failed with the next attempt in 5 s, attempted again when due, and retried by hand', async () => {
      const res = await admin.createWebhook({
        org_id: 1,
        url: `${stack.baseUrl}/dev/webhooks/flaky?status=503`,
        events: ['session.revoked'],
      });
      const flaky = res.body.data.id as number;
      const token = await api().mint();
      expect((await api().revoke({ token })).status).toBe(200);
      expect(await arrivedAt('flaky')).toHaveLength(1);
      let [delivery] = await deliveries(flaky);
      expect(delivery).toMatchObject({ event_type: 'session.revoked', status: 'failed', attempts: 1, last_status_code: 503 });
      expect(Date.parse(delivery!.next_attempt_at) - Date.parse(delivery!.last_attempt_at)).toBe(5_000);

      stack.clock.advance(5_000);
      expect(await arrivedAt('flaky')).toHaveLength(2);
      [delivery] = await deliveries(flaky);
      expect(delivery).toMatchObject({ status: 'failed', attempts: 2 });
      expect(Date.parse(delivery!.next_attempt_at) - Date.parse(delivery!.last_attempt_at)).toBe(5 * 60_000);

      expect((await admin.retryWebhookDelivery({ org_id: 1, delivery_id: delivery!.id })).status).toBe(200);
      const arrived = await arrivedAt('flaky');
      expect(arrived).toHaveLength(3);
      // The same delivery each time: one webhook-id, every attempt signed and verified.
      expect(new Set(arrived.map((d) => d.webhook_id))).toEqual(new Set([delivery!.id]));
      expect(arrived.every((d) => d.verified)).toBe(true);
      expect((await deliveries(flaky))[0]).toMatchObject({
        attempts: 3,
        attempts_log: [expect.any(Object), expect.any(Object), expect.any(Object)],
      });
    });

    test('test-webhook sends webhook.test to the endpoint', async () => {
      expect((await admin.testWebhook({ id: receiver, org_id: 1 })).status).toBe(200);
      const tests = (await arrivedAt('e2e')).filter((d) => d.event.type === 'webhook.test');
      expect(tests).toHaveLength(1);
      expect(tests[0]).toMatchObject({ verified: true, event: { data: { webhook_id: receiver } } });
    });

    test('session.expired from the due sweep for the token left to expire, never for the consumed one', async () => {
      const left = await api().mint({ game_id: 101, expires_in_minutes: 1 });
      const consumed = await api().mint({ game_id: 101, expires_in_minutes: 1 });
      expect((await api().consume({ token: consumed })).status).toBe(200);
      await stack.workers.settle();
      // Past the expiry's minute (the standardwebhooks check allows a timestamp 5 minutes off, so less).
      stack.clock.advance(2.5 * 60_000);
      await stack.workers.runScheduled();
      const expired = (await arrivedAt('e2e')).filter((d) => d.event.type === 'session.expired');
      expect(expired.map((d) => d.event.data.token)).toEqual([left]);
      expect(expired[0]).toMatchObject({ verified: true });
    });

    test('key.expiring: at once for a key that expires within 7 days, and only once', async () => {
      const expiresAt = new Date(stack.clock.now() + 3 * 24 * 3_600_000).toISOString();
      const created = await admin.create({ org_id: 1, name: 'short-lived', expires_at: expiresAt });
      expect(created.status).toBe(200);
      // Its due item is for this minute: swept once the minute has passed.
      stack.clock.advance(61_000);
      await stack.workers.runScheduled();
      await stack.workers.runScheduled();
      const expiring = (await arrivedAt('e2e')).filter((d) => d.event.type === 'key.expiring');
      expect(expiring).toHaveLength(1);
      expect(expiring[0]).toMatchObject({ verified: true, event: { data: { id: created.body.data.id, expires_at: expiresAt } } });
    });
  },
  { workers: true },
);
