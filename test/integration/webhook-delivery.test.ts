/**
 * Webhook delivery end to end on the local stack (real embedded DynamoDB, deployment `local`): the
 * fan-out stores deliveries and enqueues them on the in-process queue, which hands them to the
 * `webhook-delivery` worker's handler as SQS events; the worker signs and POSTs to a real receiver
 * on 127.0.0.1. Signatures verified with the stock `standardwebhooks` library (rotation: two, one
 * per secret), the retry schedule on a moved clock (delays beyond the queue's 15 minutes sent
 * again), 410 and 5 days of failures disabling the endpoint (with the audit record), a redirect
 * not followed, a duplicate message making no second attempt, at most 5 attempts at once to an
 * endpoint while another still gets its deliveries, and a paused endpoint's delivery ending
 * exhausted without a call.
 */
import { afterAll, beforeAll, expect, test } from '@jest/globals';
import type { SQSEvent } from 'aws-lambda';
import { createServer, type IncomingHttpHeaders, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Webhook } from 'standardwebhooks';
import { LocalDeliveryQueue } from '../../infra/local/delivery-queue.js';
import { overrideServices } from '../../shared/platform/services.js';
import { MAX_ATTEMPT_ENTRIES, type DeliveryRecord, type SourcedEvent } from '../../shared/webhooks/delivery-model.js';
import { webhookTest } from '../../shared/webhooks/events-from-records.js';
import type { WebhookEvent } from '../../shared/webhooks/events.js';
import { CLAIM_MS } from '../../shared/webhooks/deliver.js';
import { ENDPOINT_PLACES } from '../../shared/webhooks/endpoint-gate-store.js';
import { WebhookFanOut } from '../../shared/webhooks/fan-out.js';
import { ATTEMPT_DELAYS_MS } from '../../shared/webhooks/schedule.js';
import { deliveryStore, webhookStore } from '../../shared/webhooks/services.js';
import { handler } from '../../shared/webhooks/workers/webhook-delivery.js';
import { describeWithStack } from '../support/describe-with-stack.js';
import { capturedLogs } from '../support/local-stack.js';

const MINUTE = 60_000;
const DAY = 24 * 60 * MINUTE;

/** One request the receiver got. */
interface Arrival {
  readonly path: string;
  readonly headers: IncomingHttpHeaders;
  readonly body: string;
  /** The stack's clock when it arrived. */
  readonly atMs: number;
}

/**
 * The endpoint: a receiver on 127.0.0.1 that answers by the path's first segment: `ok` 200,
 * `fail` 500, `gone` 410, `redirect` 302 (to `/after-redirect`), `slow` held until released.
 */
class Receiver {
  readonly arrivals: Arrival[] = [];
  private readonly held: ServerResponse[] = [];
  inFlight = 0;
  maxInFlight = 0;
  private server!: Server;
  port = 0;

  constructor(private readonly now: () => number) {}

  async start(): Promise<void> {
    this.server = createServer((req, res) => {
      let body = '';
      req.on('data', (chunk: Buffer) => (body += chunk.toString('utf8')));
      req.on('end', () => {
        const path = req.url ?? '';
        this.arrivals.push({ path, headers: req.headers, body, atMs: this.now() });
        const kind = path.split('/')[1];
        if (kind === 'ok') res.writeHead(200).end('thanks');
        else if (kind === 'fail') res.writeHead(500).end('down');
        else if (kind === 'gone') res.writeHead(410).end();
        else if (kind === 'redirect') res.writeHead(302, { location: '/after-redirect' }).end();
        else if (kind === 'slow') {
          this.inFlight += 1;
          this.maxInFlight = Math.max(this.maxInFlight, this.inFlight);
          this.held.push(res);
        } else res.writeHead(404).end();
      });
    });
    await new Promise<void>((done) => this.server.listen(0, '127.0.0.1', done));
    this.port = (this.server.address() as AddressInfo).port;
  }

  url(path: string): string {
    return `http://127.0.0.1:${this.port}${path}`;
  }

  to(prefix: string): Arrival[] {
    return this.arrivals.filter((a) => a.path.startsWith(prefix));
  }

  /** Answer every held request 200. */
  release(): void {
    for (const res of this.held.splice(0)) {
      this.inFlight -= 1;
      res.writeHead(200).end();
    }
  }

  async stop(): Promise<void> {
    this.release();
    this.server.closeAllConnections();
    await new Promise((done) => this.server.close(done));
  }
}

/** Wait until `done()` holds (the receiver sees what a run not awaited does). */
async function until(done: () => boolean, what: string, timeoutMs = 10_000): Promise<void> {
  const end = Date.now() + timeoutMs;
  while (!done()) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

describeWithStack('webhook delivery', ({ stack, admin }) => {
  let receiver: Receiver;
  let queue: LocalDeliveryQueue;
  let fanOut: WebhookFanOut;
  /** Every record the handler was handed, by delivery id. */
  const received = new Map<string, number>();

  beforeAll(async () => {
    receiver = new Receiver(() => stack.clock.now());
    await receiver.start();
    queue = new LocalDeliveryQueue({
      clock: stack.clock,
      handler: async (event: SQSEvent) => {
        for (const record of event.Records) {
          const id = (JSON.parse(record.body) as { delivery_id: string }).delivery_id;
          received.set(id, (received.get(id) ?? 0) + 1);
        }
        return handler(event);
      },
    });
    overrideServices({ ...stack.overrides, queues: { 'webhook-deliveries': queue } });
    fanOut = new WebhookFanOut({ webhooks: webhookStore(), deliveries: deliveryStore(), queue, clock: stack.clock });
  });
  afterAll(async () => {
    await receiver?.stop();
    overrideServices(stack.overrides);
  });

  /** A new endpoint of org 1 at `path` on the receiver; its id, secret and stored record. */
  const endpoint = async (path: string, events: string[] = ['*']) => {
    const res = await admin.createWebhook({ org_id: 1, url: receiver.url(path), events });
    expect(res.status).toBe(200);
    const { id, secret } = res.body.data as { id: number; secret: string };
    stack.secrets.noteText(secret);
    return { id, secret, record: async () => (await webhookStore().find(1, id))! };
  };
  let sources = 0;
  const sourced = (event: WebhookEvent): SourcedEvent => ({ org_id: 1, source_id: `test-source-${(sources += 1)}`, event });
  const testEvent = (webhookId: number) => sourced(webhookTest(webhookId, stack.clock.now()));
  const send = async (ep: Awaited<ReturnType<typeof endpoint>>) => fanOut.deliverTo(await ep.record(), testEvent(ep.id));
  const stored = async (d: Pick<DeliveryRecord, 'webhook_id' | 'id'>) => (await deliveryStore().find(d.webhook_id, d.id))!;
  /** Run the queue until nothing is due now. */
  const drain = async () => {
    for (let i = 0; i < 20 && (await queue.runDue()) > 0; i += 1);
  };
  const disableRecords = async (webhookId: number) =>
    ((await admin.audit({ org_id: 1, audit_action: 'disable-webhook' })).body.data.records as any[]).filter(
      (r) => r.webhook_id === webhookId,
    );

  test('fan-out: one delivery per active endpoint subscribing to the type; signed, verified by standardwebhooks', async () => {
    const wants = await endpoint('/ok/fan-wants', ['key.rate_limited']);
    const other = await endpoint('/ok/fan-other', ['session.consumed']);
    const paused = await endpoint('/ok/fan-paused', ['*']);
    expect((await admin.updateWebhook({ id: paused.id, org_id: 1, is_active: false })).status).toBe(200);
    const event: WebhookEvent = {
      type: 'key.rate_limited',
      timestamp: new Date(stack.clock.now()).toISOString(),
      data: { key_id: 1, window: 'minute', limit: 10, resets_at: new Date(stack.clock.now() + MINUTE).toISOString() },
    };
    const once = sourced(event);
    await fanOut.publish([once]);
    await drain();
    // The same source read again (a stream batch retried): the same id, no second delivery, no second call.
    await fanOut.publish([once]);
    await drain();

    expect(receiver.to('/ok/fan-other')).toEqual([]);
    expect(receiver.to('/ok/fan-paused')).toEqual([]);
    const [arrival, ...more] = receiver.to('/ok/fan-wants');
    expect(more).toEqual([]);
    expect(arrival!.headers['webhook-id']).toMatch(new RegExp(`^msg_${wants.id}_[0-9A-HJKMNP-TV-Z]{26}$`));
    expect(arrival!.headers['webhook-timestamp']).toBe(String(Math.floor(arrival!.atMs / 1000)));
    expect(arrival!.headers['content-type']).toBe('application/json');
    expect(new Webhook(wants.secret).verify(arrival!.body, arrival!.headers as Record<string, string>)).toEqual(event);
    expect(arrival!.body).toBe(JSON.stringify(event));

    const delivery = await stored({ webhook_id: wants.id, id: arrival!.headers['webhook-id'] as string });
    expect(delivery).toMatchObject({
      status: 'succeeded',
      attempts: 1,
      last_status_code: 200,
      event_type: 'key.rate_limited',
      next_attempt_at: null,
    });
    expect(delivery.attempt_log).toEqual([
      { at: delivery.last_attempt_at, status_code: 200, duration_ms: expect.any(Number), error: null },
    ]);
    expect((await deliveryStore().listByWebhook(other.id, 10)).deliveries).toEqual([]);
    // The paused endpoint: the event kept as skipped (for a recovery), never attempted, nothing queued.
    expect((await deliveryStore().listByWebhook(paused.id, 10)).deliveries).toEqual([
      expect.objectContaining({ event_type: 'key.rate_limited', status: 'skipped', attempts: 0, next_attempt_at: null, attempt_log: [] }),
    ]);
    expect(queue.pending().filter((m) => m.body.includes(`"webhook_id":${paused.id},`))).toEqual([]);
  });

  /** Two copies of a delivery's queued message handed to the worker at once, as two invocations. */
  const twoCopiesAtOnce = async (delivery: Pick<DeliveryRecord, 'id'>) => {
    const [message] = queue.pending().filter((m) => m.body.includes(delivery.id));
    const copy = (messageId: string) => ({ messageId, body: message!.body }) as SQSEvent['Records'][number];
    await Promise.all([handler({ Records: [copy('copy-1')] }), handler({ Records: [copy('copy-2')] })]);
  };

  test('two copies of one message at once (200): one POST, succeeded, 1 attempt, 1 entry', async () => {
    const ep = await endpoint('/ok/at-once');
    const delivery = await send(ep);
    await twoCopiesAtOnce(delivery);
    // The queued original too, after them: turned away by the attempt count.
    await drain();
    expect(receiver.to('/ok/at-once')).toHaveLength(1);
    const now = await stored(delivery);
    expect(now).toMatchObject({ status: 'succeeded', attempts: 1, last_status_code: 200 });
    expect(now.attempt_log).toEqual([{ at: now.last_attempt_at, status_code: 200, duration_ms: expect.any(Number), error: null }]);
    // The attempt's claim is cleared by its record.
    expect(now.claim_id).toBeUndefined();
    expect(now.claim_until).toBeUndefined();
  });

  test('two copies of one message at once (500): one POST, failed, one next attempt queued', async () => {
    const ep = await endpoint('/fail/at-once');
    const delivery = await send(ep);
    await twoCopiesAtOnce(delivery);
    await drain();
    expect(receiver.to('/fail/at-once')).toHaveLength(1);
    const now = await stored(delivery);
    expect(now).toMatchObject({ status: 'failed', attempts: 1, last_status_code: 500 });
    expect(now.attempt_log).toHaveLength(1);
    // (A copy that found the other's claim may wait for its end, at the count it was sent with.)
    const next = queue.pending().filter((m) => m.body.includes(delivery.id) && JSON.parse(m.body).attempts === 1);
    expect(next.map((m) => JSON.parse(m.body))).toEqual([
      { webhook_id: ep.id, delivery_id: delivery.id, attempts: 1, due_at: now.next_attempt_at },
    ]);
    // Its next attempt, due in 5 s, is the second POST: recorded as the second entry.
    stack.clock.advance(ATTEMPT_DELAYS_MS[1]!);
    await drain();
    expect(receiver.to('/fail/at-once')).toHaveLength(2);
    expect(await stored(delivery)).toMatchObject({ status: 'failed', attempts: 2 });
    expect((await stored(delivery)).attempt_log).toHaveLength(2);
  });

  test('a claim whose worker crashed: once its lease has ended, a copy of the message makes the attempt', async () => {
    const ep = await endpoint('/ok/crashed');
    const delivery = await send(ep);
    // A worker took the attempt, then died before sending (the claim is all it left).
    expect(await deliveryStore().claim(delivery, 'crashed-lease', stack.clock.now(), stack.clock.now() + CLAIM_MS)).toBe(true);
    await drain();
    expect(receiver.to('/ok/crashed')).toEqual([]);
    expect(await stored(delivery)).toMatchObject({ status: 'pending', attempts: 0 });
    // The copy waits for the claim's end, then takes it.
    expect(queue.pending().filter((m) => m.body.includes(delivery.id))).toHaveLength(1);
    stack.clock.advance(CLAIM_MS + 1);
    await drain();
    expect(receiver.to('/ok/crashed')).toHaveLength(1);
    expect(await stored(delivery)).toMatchObject({ status: 'succeeded', attempts: 1 });
  });

  test('a count read before the last attempt is refused by each compare-and-swap (claim, unsent end, hand retry): nothing changes', async () => {
    const ep = await endpoint('/fail/stale-count');
    const delivery = await send(ep);
    await drain();
    const now = await stored(delivery);
    expect(now).toMatchObject({ status: 'failed', attempts: 1 });
    // A copy read the delivery before its first attempt: its count (0) is one behind the stored one.
    const stale = { ...now, attempts: 0, attempt_log: [] };
    const at = stack.clock.now();
    expect(await deliveryStore().claim(stale, 'stale-lease', at, at + CLAIM_MS)).toBe(false);
    const entry = { at: new Date(at).toISOString(), status_code: null, duration_ms: 0, error: 'endpoint paused' };
    expect(await deliveryStore().endUnsent(stale, { ...now, status: 'exhausted', attempts: 0 }, entry, at)).toBe(false);
    await expect(deliveryStore().markRetried(stale, { ...now, status: 'pending', attempts: 0 }, at)).rejects.toMatchObject({
      name: 'DeliveryAttemptPending',
    });
    expect(await stored(delivery)).toEqual(now);
  });

  test('rotation: two signatures, one per secret, each verifying with standardwebhooks', async () => {
    const ep = await endpoint('/ok/rotated');
    const rotated = await admin.rotateWebhookSecret({ id: ep.id, org_id: 1 });
    expect(rotated.status).toBe(200);
    const next = rotated.body.data.secret as string;
    stack.secrets.noteText(next);
    await send(ep);
    await drain();
    const [arrival] = receiver.to('/ok/rotated');
    const signatures = (arrival!.headers['webhook-signature'] as string).split(' ');
    expect(signatures).toHaveLength(2);
    for (const secret of [next, ep.secret]) {
      expect(new Webhook(secret).verify(arrival!.body, arrival!.headers as Record<string, string>)).toMatchObject({ type: 'webhook.test' });
    }
    // Each signature is one secret's: with only one of them, each secret verifies exactly one.
    for (const secret of [next, ep.secret]) {
      const verifying = signatures.filter((signature) => {
        try {
          new Webhook(secret).verify(arrival!.body, { ...(arrival!.headers as Record<string, string>), 'webhook-signature': signature });
          return true;
        } catch {
          return false;
        }
      });
      expect(verifying).toHaveLength(1);
    }
  });

  test('a redirect is a failure, and is not followed', async () => {
    const ep = await endpoint('/redirect/here');
    const delivery = await send(ep);
    await drain();
    expect(receiver.to('/redirect/here')).toHaveLength(1);
    expect(receiver.to('/after-redirect')).toEqual([]);
    const now = await stored(delivery);
    expect(now).toMatchObject({ status: 'failed', attempts: 1, last_status_code: 302 });
    expect(now.attempt_log[0]).toMatchObject({ status_code: 302, error: 'redirect not followed' });
    expect((await ep.record()).is_active).toBe(true);
  });

  test('a duplicate message, or the same delivery made again, makes no second attempt', async () => {
    const ep = await endpoint('/ok/dup');
    const source = testEvent(ep.id);
    const delivery = await fanOut.deliverTo(await ep.record(), source);
    const [message] = queue.pending().filter((m) => m.body.includes(delivery.id));
    await drain();
    expect(receiver.to('/ok/dup')).toHaveLength(1);

    await queue.send([JSON.parse(message!.body)]);
    await fanOut.deliverTo(await ep.record(), source);
    await drain();
    expect(receiver.to('/ok/dup')).toHaveLength(1);
    expect(received.get(delivery.id)).toBe(3);
    expect(await stored(delivery)).toMatchObject({ status: 'succeeded', attempts: 1 });
  });

  test('100 concurrent hand retries: as many POSTs as accepted retries, each in the log; the rest 409 delivery_attempt_pending', async () => {
    const ep = await endpoint('/ok/retried');
    const delivery = await send(ep);
    await drain();
    expect(receiver.to('/ok/retried')).toHaveLength(1);
    // The delivery worker runs beside the retries, as in AWS.
    let pumping = true;
    const pump = (async () => {
      while (pumping) {
        await queue.runDue();
        await new Promise((resolve) => setTimeout(resolve, 2));
      }
    })();
    const answers: { status: number; code?: string }[] = [];
    let accepted = 0;
    for (let wave = 0; wave < 4; wave += 1) {
      // A minute of its own per wave (the org's hand sends are 60 a minute).
      stack.clock.advance(MINUTE);
      const concurrent = await Promise.all(
        Array.from({ length: 25 }, () => admin.retryWebhookDelivery({ org_id: 1, delivery_id: delivery.id })),
      );
      answers.push(...concurrent.map((res) => ({ status: res.status, code: res.body.code })));
      accepted = answers.filter((a) => a.status === 200).length;
      // Each accepted retry's attempt recorded before the next wave: so each wave has one to accept at least.
      const end = Date.now() + 10_000;
      while ((await stored(delivery)).attempts < 1 + accepted || (await stored(delivery)).status === 'pending') {
        if (Date.now() > end) throw new Error('timed out waiting for the accepted retries to be attempted');
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
    }
    pumping = false;
    await pump;
    await drain();

    expect(answers.filter((a) => a.status !== 200 && !(a.status === 409 && a.code === 'delivery_attempt_pending'))).toEqual([]);
    expect(answers).toHaveLength(100);
    expect(accepted).toBeGreaterThanOrEqual(4);
    const now = await stored(delivery);
    expect(receiver.to('/ok/retried')).toHaveLength(1 + accepted);
    expect(now).toMatchObject({ status: 'succeeded', attempts: 1 + accepted });
    expect(now.attempt_log).toHaveLength(Math.min(1 + accepted, MAX_ATTEMPT_ENTRIES));
    expect(now.attempt_log.every((entry) => entry.status_code === 200)).toBe(true);
  }, 90_000);

  test('a paused endpoint: its due delivery ends exhausted without a call', async () => {
    const ep = await endpoint('/ok/paused');
    const delivery = await send(ep);
    expect((await admin.updateWebhook({ id: ep.id, org_id: 1, is_active: false })).status).toBe(200);
    await drain();
    expect(receiver.to('/ok/paused')).toEqual([]);
    const now = await stored(delivery);
    expect(now).toMatchObject({ status: 'exhausted', attempts: 0, last_status_code: null, next_attempt_at: null });
    expect(now.attempt_log).toEqual([{ at: expect.any(String), status_code: null, duration_ms: 0, error: 'endpoint disabled: not sent' }]);
    expect(queue.pending().filter((m) => m.body.includes(delivery.id))).toEqual([]);
  });

  test('at most 5 attempts at once to a slow endpoint, while another endpoint still gets its deliveries', async () => {
    const slow = await endpoint('/slow/a');
    const quick = await endpoint('/ok/b');
    const slowOnes = [];
    for (let i = 0; i < 8; i += 1) slowOnes.push(await send(slow));
    const quickOnes = [await send(quick), await send(quick)];

    const run = queue.runDue();
    await until(() => receiver.inFlight === 5 && receiver.to('/ok/b').length === 2, '5 held at the slow endpoint and both quick ones');
    // Nothing more reaches the slow endpoint while its 5 places are taken.
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(receiver.to('/slow/a')).toHaveLength(5);
    for (const d of quickOnes) expect(await stored(d)).toMatchObject({ status: 'succeeded', attempts: 1 });

    receiver.release();
    await run;
    // The 3 that found no place wait a second (no attempt counted), then go.
    for (const d of slowOnes) expect((await stored(d)).attempts).toBeLessThanOrEqual(1);
    stack.clock.advance(1_000);
    const rest = queue.runDue();
    await until(() => receiver.to('/slow/a').length === 8, 'the last 3');
    receiver.release();
    await rest;
    await drain();
    expect(receiver.maxInFlight).toBe(ENDPOINT_PLACES);
    for (const d of slowOnes) expect(await stored(d)).toMatchObject({ status: 'succeeded', attempts: 1 });
  });

  test('410: the endpoint is disabled at once (is_active false, an audit record by system), the delivery exhausted', async () => {
    const ep = await endpoint('/gone/now');
    const delivery = await send(ep);
    await drain();
    const ended = await stored(delivery);
    expect(ended).toMatchObject({ status: 'exhausted', attempts: 1, last_status_code: 410, next_attempt_at: null });
    // Paused at the attempt that heard the 410.
    const pausedAt = ended.attempt_log[0]!.at;
    expect(await ep.record()).toMatchObject({
      is_active: false,
      failing_since: expect.any(String),
      paused_at: pausedAt,
      updated_at: pausedAt,
    });
    expect(((await admin.listWebhooks(1)).body.data as any[]).find((w) => w.id === ep.id).paused_at).toBe(pausedAt);
    const [record, ...more] = await disableRecords(ep.id);
    expect(more).toEqual([]);
    expect(record).toMatchObject({
      action: 'disable-webhook',
      actor: 'system',
      webhook_id: ep.id,
      status: 200,
      changes: ['is_active'],
      diff: { is_active: { before: true, after: false }, disabled_reason: { before: null, after: 'the endpoint answered 410 Gone' } },
    });
    expect(queue.pending().filter((m) => m.body.includes(delivery.id))).toEqual([]);
  });

  test('retries on the schedule: 0, 5 s, 5 min, 30 min, 2 h, 5 h, 10 h, 10 h, then exhausted; waits over 15 min sent again', async () => {
    const ep = await endpoint('/fail/schedule');
    const delivery = await send(ep);
    for (let i = 0; i < 500; i += 1) {
      await queue.runDue();
      const mine = queue.pending().filter((m) => m.body.includes(delivery.id));
      if (mine.length === 0) break;
      const dueMs = Math.min(...mine.map((m) => m.dueMs));
      // The queue never holds a message longer than SQS could (15 minutes).
      expect(dueMs - stack.clock.now()).toBeLessThanOrEqual(15 * MINUTE);
      stack.clock.advance(Math.max(0, dueMs - stack.clock.now()));
    }
    const times = receiver.to('/fail/schedule').map((a) => a.atMs);
    expect(times).toHaveLength(ATTEMPT_DELAYS_MS.length);
    const gaps = times.slice(1).map((t, i) => t - times[i]!);
    gaps.forEach((gap, i) => {
      expect(gap).toBeGreaterThanOrEqual(ATTEMPT_DELAYS_MS[i + 1]!);
      expect(gap).toBeLessThan(ATTEMPT_DELAYS_MS[i + 1]! + 2_000);
    });
    const now = await stored(delivery);
    expect(now).toMatchObject({ status: 'exhausted', attempts: 8, last_status_code: 500, next_attempt_at: null });
    expect(now.attempt_log.map((e) => e.status_code)).toEqual(Array(8).fill(500));
    // 30 min, 2 h, 5 h, 10 h, 10 h in 15-minute steps: each step but the last of each wait came early and was sent again.
    const early = [30, 120, 300, 600, 600].reduce((sum, minutes) => sum + Math.ceil(minutes / 15) - 1, 0);
    expect(received.get(delivery.id)).toBe(8 + early);
    // 27 h 35 min of failures: not yet 5 days, the endpoint stays on.
    expect(await ep.record()).toMatchObject({ is_active: true, failing_since: now.attempt_log[0]!.at });
  });

  test('an endpoint failing every attempt for 5 days is disabled, with an audit record saying so', async () => {
    const ep = await endpoint('/fail/days');
    const first = await send(ep);
    await drain();
    const failingSince = (await stored(first)).last_attempt_at;
    expect(await ep.record()).toMatchObject({ is_active: true, failing_since: failingSince });
    expect((await ep.record()).paused_at).toBeUndefined();

    stack.clock.advance(4 * DAY);
    await drain();
    expect((await stored(first)).attempts).toBe(2);
    expect((await ep.record()).is_active).toBe(true);

    stack.clock.advance(DAY);
    await drain();
    const third = await stored(first);
    expect(third.attempts).toBe(3);
    // Paused at the attempt that made it 5 days, not when the failures began.
    const pausedAt = third.attempt_log[2]!.at;
    expect(await ep.record()).toMatchObject({ is_active: false, failing_since: failingSince, paused_at: pausedAt });
    const [record, ...more] = await disableRecords(ep.id);
    expect(more).toEqual([]);
    expect(record).toMatchObject({
      actor: 'system',
      diff: { disabled_reason: { after: `every attempt failed for 5 days (since ${failingSince})` } },
    });

    // Its next scheduled attempt finds it disabled: exhausted, no call.
    const calls = receiver.to('/fail/days').length;
    stack.clock.advance(30 * MINUTE);
    for (let i = 0; i < 3; i += 1) {
      await drain();
      stack.clock.advance(15 * MINUTE);
    }
    expect(receiver.to('/fail/days')).toHaveLength(calls);
    expect(await stored(first)).toMatchObject({ status: 'exhausted', attempts: 3 });

    // Turned on again by its admin: the failure streak starts afresh (one failure does not disable it again).
    expect((await admin.updateWebhook({ id: ep.id, org_id: 1, is_active: true })).status).toBe(200);
    expect(await ep.record()).toMatchObject({ is_active: true, failing_since: null });
    expect((await ep.record()).paused_at).toBeUndefined();
    await send(ep);
    await drain();
    expect(receiver.to('/fail/days')).toHaveLength(calls + 1);
    expect((await ep.record()).is_active).toBe(true);
  });

  test('a malformed message is logged and dropped, not handed again', async () => {
    const logsFrom = capturedLogs.length;
    const record = { messageId: 'm-1', body: '{"webhook_id":"x"}' } as SQSEvent['Records'][number];
    expect(await handler({ Records: [record, { ...record, messageId: 'm-2', body: 'not json' }] })).toEqual({ batchItemFailures: [] });
    expect(capturedLogs.slice(logsFrom).filter((l) => l.includes('malformed webhook delivery message dropped'))).toHaveLength(2);
  });

  test('each attempt is counted in the metrics (delivered, failed, latency), and no message was dead-lettered', () => {
    const lines = capturedLogs.filter((l) => l.startsWith('{"_aws"') && l.includes('WebhookLatency')).map((l) => JSON.parse(l));
    const sum = (name: string) => lines.reduce((total, line) => total + (line[name] as number), 0);
    const attempts = receiver.arrivals.filter((a) => a.path !== '/after-redirect').length;
    expect(sum('WebhookDelivered') + sum('WebhookFailed')).toBe(attempts);
    expect(sum('WebhookFailed')).toBe(receiver.arrivals.filter((a) => /^\/(fail|gone|redirect)\//.test(a.path)).length);
    expect(lines[0]._aws.CloudWatchMetrics[0].Dimensions).toEqual([['service']]);
    expect(queue.deadLettered()).toEqual([]);
  });
});
