/**
 * Webhook recovery (docs/webhooks.md#recovery) on the backend of this tier, end to end: tokens
 * consumed over REST while an endpoint is paused make `skipped` deliveries (kept, never attempted);
 * once the endpoint is resumed, recover-webhook sends exactly those events, each verified by a
 * partner's receiver with the stock `standardwebhooks` library, with the ids the deliveries list
 * showed while they were skipped. A recovery sends only what was not received with a 2xx, so a
 * second one after they arrived sends nothing, and one made while an attempt failed sends the same
 * `webhook-id`s again (once each: the scheduled retry it overtook is turned away). A window starts
 * at most 30 days back; refusals are the error envelope.
 */
import { afterAll, beforeAll, expect, test } from '@jest/globals';
import { describeWithStack } from '../support/describe-with-stack.js';
import { createTestKey, UNLIMITED, type TestKey } from '../support/keys.js';
import { sessionsApi } from '../support/sessions-api.js';
import { WebhookReceiver } from '../support/webhook-receiver.js';

const BACKEND = process.env.DYNAMODB_BACKEND === 'local' ? 'DynamoDB Local' : 'dynalite';
const DAY = 24 * 60 * 60_000;
/** Tokens consumed while the endpoint is paused. */
const MISSED = 100;

describeWithStack(
  `webhook recovery on ${BACKEND}`,
  ({ stack, admin }) => {
    const receiver = new WebhookReceiver(() => stack.clock.now());
    let partner: TestKey;
    let webhookId: number;
    const api = () => sessionsApi(stack, () => partner.raw);
    const arrivals = () => receiver.arrivals.filter((a) => a.endpoint === 'recover');
    const setActive = async (is_active: boolean) =>
      expect((await admin.updateWebhook({ id: webhookId, org_id: 1, is_active })).status).toBe(200);
    const recover = (body: Record<string, unknown>) => admin.recoverWebhook({ org_id: 1, id: webhookId, ...body });

    /** The endpoint's deliveries made since `sinceIso`, every page. */
    async function deliveriesSince(
      sinceIso: string,
    ): Promise<{ id: string; status: string; attempts: number; payload: { data: { token: string } } }[]> {
      const all = [];
      let cursor: string | null = null;
      do {
        const page = await admin.listWebhookDeliveries({ org_id: 1, webhook_id: webhookId, limit: 100, ...(cursor ? { cursor } : {}) });
        expect(page.status).toBe(200);
        all.push(...page.body.data.deliveries);
        cursor = page.body.data.next_cursor;
      } while (cursor !== null);
      return all.filter((d) => d.created_at >= sinceIso);
    }

    /** Mint `count` tokens of game 101 and consume them over REST, ten at a time; their tokens. */
    async function consumeTokens(count: number): Promise<string[]> {
      const tokens: string[] = [];
      for (let from = 0; from < count; from += 10) {
        const batch = await Promise.all(Array.from({ length: Math.min(10, count - from) }, () => api().mint({ game_id: 101 })));
        for (const token of batch)
          expect((await api().consume({ token, player_uuid: 'b1c9e5a2-0000-4000-8000-000000000001' })).status).toBe(200);
        tokens.push(...batch);
      }
      await stack.workers.settle();
      return tokens;
    }

    beforeAll(async () => {
      await receiver.start();
      partner = await createTestKey(stack, UNLIMITED);
      const created = await admin.createWebhook({ org_id: 1, url: receiver.url('recover'), events: ['session.consumed'] });
      expect(created.status).toBe(200);
      webhookId = created.body.data.id;
      receiver.expect('recover', created.body.data.secret);
    });
    afterAll(() => receiver.stop());

    test(`${MISSED} tokens consumed while paused are kept skipped; after resuming, a recovery since the pause sends exactly those, verified, with their ids; a second sends none`, async () => {
      const pausedAt = new Date(stack.clock.now()).toISOString();
      await setActive(false);
      const tokens = await consumeTokens(MISSED);

      const kept = await deliveriesSince(pausedAt);
      expect(kept).toHaveLength(MISSED);
      expect(kept.every((d) => d.status === 'skipped' && d.attempts === 0)).toBe(true);
      expect(new Set(kept.map((d) => d.payload.data.token))).toEqual(new Set(tokens));
      expect(arrivals()).toEqual([]);

      // Paused: a recovery is refused (it would send nothing), a dry run counts.
      const refused = await recover({ since: pausedAt });
      expect(refused.status).toBe(409);
      expect(refused.body).toMatchObject({ success: false, code: 'conflict' });
      const counted = await recover({ since: pausedAt, dry_run: true });
      expect(counted.status).toBe(200);
      expect(counted.body.data).toMatchObject({ webhook_id: webhookId, since: pausedAt, dry_run: true, count: MISSED, next_since: null });
      await stack.settleDeliveries();
      expect(arrivals()).toEqual([]);

      await setActive(true);
      const asked = stack.clock.now();
      const recovered = await recover({ since: pausedAt });
      expect(recovered.status).toBe(200);
      expect(recovered.body.data).toEqual({
        webhook_id: webhookId,
        since: pausedAt,
        until: expect.any(String),
        dry_run: false,
        count: MISSED,
        next_since: null,
      });
      // Until left out: now, as the call read it.
      expect(Date.parse(recovered.body.data.until)).toBeGreaterThanOrEqual(asked);
      expect(Date.parse(recovered.body.data.until)).toBeLessThanOrEqual(stack.clock.now());
      await stack.settleDeliveries();

      const got = arrivals();
      expect(got.filter((a) => !a.verified).map((a) => a.verifyError)).toEqual([]);
      expect(got).toHaveLength(MISSED);
      expect(got.every((a) => a.event?.type === 'session.consumed')).toBe(true);
      expect(new Set(got.map((a) => a.event!.data.token))).toEqual(new Set(tokens));
      expect(new Set(got.map((a) => a.webhookId))).toEqual(new Set(kept.map((d) => d.id)));
      const after = await deliveriesSince(pausedAt);
      expect(after.every((d) => d.status === 'succeeded' && d.attempts === 1)).toBe(true);

      // Everything was received with a 2xx: a second recovery of the window sends nothing.
      const again = await recover({ since: pausedAt });
      expect(again.body.data).toMatchObject({ count: 0, next_since: null });
      await stack.settleDeliveries();
      expect(arrivals()).toHaveLength(MISSED);
    }, 120_000);

    test('a recovery of deliveries whose attempt failed sends the same webhook-ids again, each once: the scheduled retry it overtook is turned away', async () => {
      const since = new Date(stack.clock.now()).toISOString();
      const before = arrivals().length;
      // The receiver fails every delivery's first attempt.
      receiver.plan = () => ['error'];
      const tokens = await consumeTokens(3);
      const failed = await deliveriesSince(since);
      expect(failed.map((d) => [d.status, d.attempts])).toEqual([
        ['failed', 1],
        ['failed', 1],
        ['failed', 1],
      ]);

      const recovered = await recover({ since });
      expect(recovered.body.data).toMatchObject({ count: 3 });
      await stack.workers.settle();
      // Past the 5 s of the scheduled second attempts: they find the count moved on.
      stack.clock.advance(60_000);
      await stack.settleDeliveries();

      const got = arrivals().slice(before);
      expect(got.map((a) => a.event?.data.token).sort()).toEqual([...tokens, ...tokens].sort());
      const ids = failed.map((d) => d.id);
      for (const id of ids) expect(got.filter((a) => a.webhookId === id).map((a) => a.answer)).toEqual(['error', 'ok']);
      expect(got.every((a) => a.verified)).toBe(true);
      expect((await deliveriesSince(since)).map((d) => [d.status, d.attempts])).toEqual([
        ['succeeded', 2],
        ['succeeded', 2],
        ['succeeded', 2],
      ]);
      receiver.plan = () => [];
    }, 60_000);

    test('refusals: until not after since (400, param until), a since that is no timestamp (400), an endpoint of no one (404); each audited', async () => {
      const now = new Date(stack.clock.now()).toISOString();
      const reversed = await recover({ since: now, until: new Date(stack.clock.now() - 60_000).toISOString() });
      expect(reversed.status).toBe(400);
      expect(reversed.body).toMatchObject({ success: false, code: 'invalid_input', param: 'until' });
      const garbled = await recover({ since: 'yesterday' });
      expect(garbled.status).toBe(400);
      expect(garbled.body).toMatchObject({ success: false, param: 'since' });
      const unknown = await admin.recoverWebhook({ org_id: 1, id: 999_999, since: now });
      expect(unknown.status).toBe(404);
      const recorded = await admin.audit({ org_id: 1, audit_action: 'recover-webhook', limit: 50 });
      expect(recorded.status).toBe(200);
      const statuses = (recorded.body.data.records as { status: number }[]).map((r) => r.status);
      expect(statuses).toEqual(expect.arrayContaining([200, 404, 409]));
    });

    test('a window starts at most 30 days back: events older than that are not sent, a since before it is read as 30 days ago', async () => {
      const since = new Date(stack.clock.now()).toISOString();
      await setActive(false);
      await consumeTokens(3);
      await setActive(true);
      expect((await recover({ since, dry_run: true })).body.data).toMatchObject({ count: 3 });
      stack.clock.advance(31 * DAY);
      try {
        const asked = stack.clock.now();
        const late = await recover({ since, dry_run: true });
        expect(late.status).toBe(200);
        expect(late.body.data).toMatchObject({ count: 0 });
        // Read as 30 days before the call.
        expect(Date.parse(late.body.data.since)).toBeGreaterThanOrEqual(asked - 30 * DAY);
        expect(Date.parse(late.body.data.since)).toBeLessThanOrEqual(stack.clock.now() - 30 * DAY);
        expect((await recover({ since })).body.data).toMatchObject({ count: 0 });
      } finally {
        stack.clock.advance(-31 * DAY);
      }
    });
  },
  { workers: true },
);
