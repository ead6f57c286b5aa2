/**
 * Webhooks in `npm run bench`: on a local stack of their own with the workers running
 * (embedded DynamoDB in this process, as `npm start` runs it: the stream stand-in needs to see the
 * writes), a receiver on 127.0.0.1 that answers 204 at once, and an endpoint of org 1 registered on it.
 * - **end-to-end delay**: from a consume's answer to the receiver holding its `session.consumed`
 *   (write, stream record, `webhook-events`, deliveries table, queue, `webhook-delivery`, signed POST);
 * - **events lost**: lifecycles as partners make them (metadata, external_ref, player_uuid; games and
 *   streams), each token consumed, revoked or left to expire (the clock moved past its expiry, the
 *   due sweep run), several at a time: `events_expected` (one per token), `events_delivered` (the
 *   tokens whose event of that type the receiver holds), `events_lost` (the difference; target 0);
 * - **deliveries per second of one delivery function**: queued deliveries attempted by one instance
 *   of the delivery worker (its batches of 10 one after the other, each batch's attempts side by side);
 * - **DynamoDB units per delivery** (an event for one endpoint): the fan-out's and one successful
 *   attempt's calls, priced by the capacity probe as the stage figures are;
 * - **cost per million events** (one endpoint each, delivered at the first attempt): those units,
 *   both workers' invocations and durations, SQS requests, the deliveries kept 30 days, log lines.
 *   Stream reads by a Lambda trigger are free. In AWS a receiver answers in tens to hundreds of
 *   milliseconds, during which the delivery function is billed: {@link RECEIVER_MS} is added to each
 *   batch's duration (this machine's receiver answers at once).
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { startLocalService, type LocalService } from '../../infra/local/service.js';
import { LocalDeliveryQueue } from '../../infra/local/delivery-queue.js';
import { FUNCTION_MEMORY_MB } from '../../infra/functions.js';
import { handler as deliveryHandler } from '../../functions/webhook-delivery.js';
import type { DeliveryMessage, SourcedEvent } from '../../shared/webhooks/delivery-model.js';
import type { WebhookEvent } from '../../shared/webhooks/events.js';
import { WebhookFanOut } from '../../shared/webhooks/fan-out.js';
import { recover } from '../../shared/webhooks/recovery.js';
import { deliveryStore, webhookStore } from '../../shared/webhooks/services.js';
import { RoundTripRecorder } from '../support/round-trips.js';
import { CapacityProbe, type CapacityUse } from './capacity.js';
import { createBenchKey } from './harness.js';
import { PRICES } from './cost.js';
import { percentile, round } from './stats.js';
import { table } from './table.js';
import { documentClient } from '../../infra/local/dynamo.js';
import { randomUUID } from 'node:crypto';
import type { Clock } from '../../shared/platform/time.js';

/** Fixed sizes (figures compare between runs only if these stay). */
/**
 * `perSecond`: the end-to-end phase's pace, under one endpoint's cap of 50 attempts a second
 * (shared/webhooks/endpoint-gate-store.ts): the delay measured is the pipeline's, not the queue a
 * burst above the cap makes (since create-session takes one stage, 4 clients offered more than 50).
 */
const WEBHOOK_SETTINGS = { lifecycles: 200, concurrency: 4, perSecond: 20, queued: 1000, unitSamples: 100 } as const;
/** The events-lost phase: lifecycles, a third each consumed, revoked and left to expire, `concurrency` at a time. */
const LOSS_SETTINGS = { lifecycles: 300, concurrency: 8 } as const;

/** Endpoints the handler phases deliver to (org 2's). */
const ENDPOINTS = 10;
/** A receiver's typical answer time in AWS, billed to the delivery function per batch (its attempts run side by side). */
const RECEIVER_MS = 100;
/** Records per `webhook-events` invocation at volume (the event source mapping's batch size). */
const EVENTS_BATCH = 100;
/** Messages per `webhook-delivery` invocation (its mapping's batch size). */
const DELIVERY_BATCH = 10;
/** SQS standard queue requests, per million (a batch of up to 10 messages of under 64 KB is one request). */
const SQS_PER_MILLION = 0.4;
/** Bytes the delivery worker logs per batch (its one EMF metrics line). */
const LOG_BYTES_PER_BATCH = 450;
const DELIVERY_RETENTION_MONTHS = 1;

/** The events-lost phase's counts: one event expected per token, those the receiver holds, the difference. */
export interface EventCounts {
  readonly expected: number;
  readonly delivered: number;
  readonly lost: number;
}

/** What the webhook phase measured. */
export interface WebhookFigures {
  readonly events: EventCounts;
  readonly e2eMs: { readonly p50: number; readonly p99: number };
  readonly deliveredPerSecond: number;
  readonly units: {
    readonly fanOut: CapacityUse;
    readonly attempt: CapacityUse;
    /** Per event kept for a paused endpoint (the fan-out's skipped delivery). */
    readonly skipped: CapacityUse;
    /** Per event a recovery queues (its range queries over the window). */
    readonly recovery: CapacityUse;
    /** Per recovered event's attempt (the delivery worker's claim and record). */
    readonly recoveredAttempt: CapacityUse;
  };
  /** Handler time per `webhook-events` batch of 100 events (fan-out), and per delivery batch of 10, ms. */
  readonly eventsBatchMs: number;
  readonly deliveryBatchMs: number;
  readonly deliveryItemBytes: number;
  readonly cost: { readonly items: Readonly<Record<string, number>>; readonly total: number };
  /** A million events to a paused endpoint: kept 30 days, and recovered. */
  readonly pausedCost: { readonly kept: number; readonly recovered: number };
}

/** A receiver on 127.0.0.1 that answers 204 at once and notes when each token's event came. */
async function startReceiver(): Promise<{
  server: Server;
  url: string;
  arrived: Map<string, number>;
  count: () => number;
  /** Each event that arrived: where, its type and its token (`<path>#<type>#<token>`). */
  events: Set<string>;
}> {
  const arrived = new Map<string, number>();
  const events = new Set<string>();
  let count = 0;
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      count++;
      const event = JSON.parse(Buffer.concat(chunks).toString('utf8')) as { type?: string; data?: { token?: string } };
      events.add(`${req.url ?? ''}#${event.type ?? ''}#${event.data?.token ?? ''}`);
      // The first arrival of a token counts (the handler phases deliver one event to several endpoints).
      if (event.data?.token && !arrived.has(event.data.token)) arrived.set(event.data.token, performance.now());
      res.writeHead(204).end();
    });
  });
  await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
  return { server, url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`, arrived, count: () => count, events };
}

/** Run the webhook phase on a stack of its own. */
export async function measureWebhooks(progress: (what: string) => void): Promise<WebhookFigures> {
  const dataDir = mkdtempSync(join(tmpdir(), 'gsts-bench-webhooks-'));
  const receiver = await startReceiver();
  let service: LocalService | undefined;
  try {
    // A clock the phase moves past the expiry of the tokens it lets expire.
    const clock = new MovableClock();
    service = await startLocalService({ port: 0, dataDir, sweepIntervalMs: 3_600_000, clock });
    const s = service.services;
    const { raw: apiKey } = await createBenchKey(s, 'bench-webhooks', []);
    const admin = `Bearer ${await service.issuer.sign('acme-admin')}`;
    const api = `${service.baseUrl}/api/org-api-keys`;
    const post = async (action: string, body: unknown, headers: Record<string, string>) => {
      const res = await fetch(`${api}?action=${action}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', ...headers },
        body: JSON.stringify(body),
      });
      const json = (await res.json()) as { data: Record<string, any> };
      if (res.status !== 200) throw new Error(`${action} answered ${res.status}: ${JSON.stringify(json)}`);
      return json.data;
    };
    const endpoint = await post('create-webhook', { org_id: 1, url: receiver.url, events: ['session.consumed'] }, { authorization: admin });

    progress(
      `webhooks: end-to-end delay of ${WEBHOOK_SETTINGS.lifecycles} consumed tokens, ${WEBHOOK_SETTINGS.concurrency} at a time, ${WEBHOOK_SETTINGS.perSecond} a second`,
    );
    const consumedAt = new Map<string, number>();
    let next = 0;
    const paceStart = performance.now();
    await Promise.all(
      Array.from({ length: WEBHOOK_SETTINGS.concurrency }, async () => {
        while (next < WEBHOOK_SETTINGS.lifecycles) {
          const due = paceStart + (next++ * 1000) / WEBHOOK_SETTINGS.perSecond;
          await new Promise((d) => setTimeout(d, Math.max(0, due - performance.now())));
          const { token } = await post('create-session', { game_id: 101 }, { 'x-api-key': apiKey });
          await post('consume-session', { token }, {});
          consumedAt.set(token as string, performance.now());
        }
      }),
    );
    const deadline = performance.now() + 60_000;
    while (receiver.arrived.size < consumedAt.size && performance.now() < deadline) await new Promise((d) => setTimeout(d, 20));
    if (receiver.arrived.size < consumedAt.size)
      throw new Error(`${consumedAt.size - receiver.arrived.size} session.consumed never arrived`);
    const delays = [...consumedAt].map(([token, at]) => receiver.arrived.get(token)! - at);

    const events = await measureLoss(service, clock, receiver, post, { apiKey, admin }, progress);

    // The rest runs the handlers directly, with the stack's own workers idle, on ENDPOINTS endpoints of
    // org 2 that each take every event: a batch of 10 consecutive messages then goes to 10 endpoints,
    // as deliveries spread over a service's partners (one endpoint alone takes 5 attempts at a time).
    await service.workers.settle();
    const globex = `Bearer ${await service.issuer.sign('globex-admin')}`;
    for (let i = 0; i < ENDPOINTS; i++) {
      await post('create-webhook', { org_id: 2, url: `${receiver.url}/${i}`, events: ['session.consumed'] }, { authorization: globex });
    }
    const probe = new CapacityProbe(documentClient(service.dynamoConnection));
    const recorder = new RoundTripRecorder(probe);
    const detach = recorder.attach(s.client);
    const fanOutQueue = new LocalDeliveryQueue({ clock: s.clock });
    const fanOut = new WebhookFanOut({ webhooks: webhookStore(), deliveries: deliveryStore(), queue: fanOutQueue, clock: s.clock });
    const event = (i: number): SourcedEvent => ({ org_id: 2, source_id: `bench:${i}`, event: sampleEvent(i) });

    const samples = WEBHOOK_SETTINGS.unitSamples;
    progress(`webhooks: DynamoDB units of the fan-out of ${samples / ENDPOINTS} events to ${ENDPOINTS} endpoints, and of their attempts`);
    let started = performance.now();
    const fanned = await recorder.measure(() => fanOut.publish(Array.from({ length: samples / ENDPOINTS }, (_, i) => event(i))));
    // Per delivery (an event to one endpoint); a batch of 100 events to one endpoint each.
    const eventsBatchMs = ((performance.now() - started) * EVENTS_BATCH) / samples;
    const fanOutUnits = per(probe.total(fanned.calls), samples);
    const oneFunction = new LocalDeliveryQueue({ clock: s.clock, handler: deliveryHandler, maxConcurrency: 1 });
    await oneFunction.send(fanOutQueue.pending().map((m) => JSON.parse(m.body)));
    const attempted = await recorder.measure(() => oneFunction.runDue());
    const attemptUnits = per(probe.total(attempted.calls), samples);
    detach();
    const [sample] = (await deliveryStore().listByWebhook(endpoint.id as number, 1)).deliveries;
    const deliveryItemBytes = Buffer.byteLength(JSON.stringify(sample)) + 100;

    progress(`webhooks: ${WEBHOOK_SETTINGS.queued} queued deliveries attempted by one delivery function`);
    const bulkQueue = new LocalDeliveryQueue({ clock: s.clock });
    const bulk = new WebhookFanOut({ webhooks: webhookStore(), deliveries: deliveryStore(), queue: bulkQueue, clock: s.clock });
    for (let i = 0; i < WEBHOOK_SETTINGS.queued / ENDPOINTS; i += EVENTS_BATCH / ENDPOINTS) {
      await bulk.publish(Array.from({ length: EVENTS_BATCH / ENDPOINTS }, (_, j) => event(1_000_000 + i + j)));
    }
    const timed = new LocalDeliveryQueue({ clock: s.clock, handler: deliveryHandler, maxConcurrency: 1 });
    await timed.send(bulkQueue.pending().map((m) => JSON.parse(m.body)));
    const before = receiver.count();
    started = performance.now();
    await timed.runDue();
    const seconds = (performance.now() - started) / 1000;
    const delivered = receiver.count() - before;
    if (delivered !== WEBHOOK_SETTINGS.queued) throw new Error(`${delivered} of ${WEBHOOK_SETTINGS.queued} queued deliveries arrived`);
    const deliveryBatchMs = (seconds * 1000 * DELIVERY_BATCH) / delivered;

    progress(`webhooks: ${samples} events to paused endpoints (kept skipped), then recovered and attempted`);
    // The same endpoints, read as paused: the fan-out keeps each event as a skipped delivery.
    const endpoints = webhookStore();
    const pausedView = Object.assign(Object.create(endpoints) as typeof endpoints, {
      listByOrg: async (orgId: number) => (await endpoints.listByOrg(orgId)).map((e) => ({ ...e, is_active: false })),
    });
    const detachPaused = recorder.attach(s.client);
    const pausedQueue = new LocalDeliveryQueue({ clock: s.clock });
    const pausedFanOut = new WebhookFanOut({ webhooks: pausedView, deliveries: deliveryStore(), queue: pausedQueue, clock: s.clock });
    const since = new Date(Date.now() - 1).toISOString();
    const skipped = await recorder.measure(() =>
      pausedFanOut.publish(Array.from({ length: samples / ENDPOINTS }, (_, i) => event(2_000_000 + i))),
    );
    if (pausedQueue.pending().length !== 0) throw new Error('a paused endpoint was sent a delivery');
    const skippedUnits = per(probe.total(skipped.calls), samples);
    const org2 = (await endpoints.listByOrg(2)).map((e) => e.id);
    const recoveryQueue = new LocalDeliveryQueue({ clock: s.clock });
    const recovered = await recorder.measure(async () => {
      let count = 0;
      for (const id of org2)
        count += (await recover({ deliveries: deliveryStore(), queue: recoveryQueue }, id, { since }, s.clock.now())).count;
      return count;
    });
    if (recovered.value !== samples) throw new Error(`recovery queued ${recovered.value} of ${samples} skipped deliveries`);
    const recoveryUnits = per(probe.total(recovered.calls), samples);
    const recoveryFunction = new LocalDeliveryQueue({ clock: s.clock, handler: deliveryHandler, maxConcurrency: 1 });
    // Each recovery's messages are its endpoint's; interleaved, a batch of 10 goes to 10 endpoints (as the bulk figure's).
    const byEndpoint = new Map<number, DeliveryMessage[]>();
    for (const m of recoveryQueue.pending().map((p) => JSON.parse(p.body) as DeliveryMessage)) {
      byEndpoint.set(m.webhook_id, [...(byEndpoint.get(m.webhook_id) ?? []), m]);
    }
    const lanes = [...byEndpoint.values()];
    await recoveryFunction.send(lanes[0]!.flatMap((_, i) => lanes.map((lane) => lane[i]).filter((m) => m !== undefined)));
    const beforeRecovery = receiver.count();
    const recoveredAttempts = await recorder.measure(() => recoveryFunction.runDue());
    if (receiver.count() - beforeRecovery !== samples)
      throw new Error(`${receiver.count() - beforeRecovery} of ${samples} recovered events arrived`);
    const recoveredAttemptUnits = per(probe.total(recoveredAttempts.calls), samples);
    detachPaused();

    const figures = {
      events,
      e2eMs: { p50: percentile(delays, 50), p99: percentile(delays, 99) },
      deliveredPerSecond: delivered / seconds,
      units: {
        fanOut: fanOutUnits,
        attempt: attemptUnits,
        skipped: skippedUnits,
        recovery: recoveryUnits,
        recoveredAttempt: recoveredAttemptUnits,
      },
      eventsBatchMs,
      deliveryBatchMs,
      deliveryItemBytes,
    };
    return { ...figures, cost: priceEvents(figures), pausedCost: pricePaused(figures) };
  } finally {
    await service?.close();
    receiver.server.close();
    rmSync(dataDir, { recursive: true, force: true });
  }
}

/** Wall time plus an offset the phase moves (past token expiries, through the retry schedule). */
class MovableClock implements Clock {
  private offsetMs = 0;
  now(): number {
    return Date.now() + this.offsetMs;
  }
  advance(ms: number): void {
    this.offsetMs += ms;
  }
}

/** How a phase calls the admin API (throws on anything but 200; the answer's data). */
type Post = (action: string, body: unknown, headers: Record<string, string>) => Promise<Record<string, any>>;

/**
 * The events-lost phase: an endpoint taking the three session events, lifecycles made as partners
 * make them, then everything they cause settled: the due sweep run a minute at a time past the
 * expiries, every delivery that waits (a retry, a turn) run when due.
 */
async function measureLoss(
  service: LocalService,
  clock: MovableClock,
  receiver: Awaited<ReturnType<typeof startReceiver>>,
  post: Post,
  credentials: { readonly apiKey: string; readonly admin: string },
  progress: (what: string) => void,
): Promise<EventCounts> {
  const { lifecycles, concurrency } = LOSS_SETTINGS;
  progress(`webhooks: events of ${lifecycles} lifecycles (consumed, revoked, left to expire), ${concurrency} at a time`);
  const path = '/hook/lifecycles';
  const types = ['session.consumed', 'session.revoked', 'session.expired'] as const;
  await post('create-webhook', { org_id: 1, url: `${receiver.url}/lifecycles`, events: types }, { authorization: credentials.admin });
  const key = { 'x-api-key': credentials.apiKey };
  const expected: string[] = [];
  let next = 0;
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (next < lifecycles) {
        const i = next++;
        const type = types[i % types.length]!;
        const body = {
          ...(i % 2 === 0 ? { game_id: 101 } : { stream_id: 201 }),
          external_ref: `order-${i}`,
          metadata: { order: i, items: [{ sku: 'A-1', qty: 2 }], note: 'café ☕', big: 2 ** 53 + 2, nested: { deep: { ok: true } } },
          ...(type === 'session.expired' ? { expires_in_minutes: 1 } : {}),
        };
        const { token } = await post('create-session', body, key);
        if (type === 'session.consumed') await post('consume-session', { token, player_uuid: randomUUID() }, {});
        if (type === 'session.revoked') await post('revoke-session', { token }, key);
        expected.push(`${path}#${type}#${String(token)}`);
      }
    }),
  );
  await service.workers.settle();
  // Past the one-minute expiries and the 2 minutes within which session.expired is sent, a minute at a time.
  for (let minute = 0; minute < 4; minute++) {
    clock.advance(60_000);
    await service.workers.runScheduled();
  }
  const queue = service.workers.queues['webhook-deliveries'];
  for (let round = 0; round < 50; round++) {
    await service.workers.settle();
    const due = queue.nextDueAt();
    if (due === undefined) break;
    clock.advance(Math.max(0, due - clock.now()) + 1);
  }
  const delivered = expected.filter((e) => receiver.events.has(e)).length;
  return { expected: expected.length, delivered, lost: expected.length - delivered };
}

function per(use: CapacityUse, n: number): CapacityUse {
  return { read: use.read / n, write: use.write / n };
}

/** A `session.consumed` as the stream rules make it (its token names it at the receiver). */
function sampleEvent(i: number): WebhookEvent {
  const at = new Date().toISOString();
  return {
    type: 'session.consumed',
    timestamp: at,
    data: {
      token: `00000000-0000-4000-8000-${String(i).padStart(12, '0')}`,
      session_id: i + 1,
      org_id: 1,
      game_id: 101,
      stream_id: null,
      external_ref: 'order-bench',
      metadata: null,
      player_uuid: null,
      player_ref: null,
      key_id: 1,
      consumed_at: at,
    },
  };
}

/** What a million events cost, each to one endpoint, delivered at the first attempt. */
function priceEvents(f: Omit<WebhookFigures, 'cost' | 'pausedCost'>): WebhookFigures['cost'] {
  const M = 1_000_000;
  const gb = FUNCTION_MEMORY_MB / 1024;
  const units = { read: f.units.fanOut.read + f.units.attempt.read, write: f.units.fanOut.write + f.units.attempt.write };
  const eventsInvocations = M / EVENTS_BATCH;
  const deliveryInvocations = M / DELIVERY_BATCH;
  const billedMs = (ms: number) => Math.max(1, Math.ceil(ms));
  const items = {
    dynamodb_units: units.read * PRICES.dynamodbReadPerMillion + units.write * PRICES.dynamodbWritePerMillion,
    lambda_requests: ((eventsInvocations + deliveryInvocations) / M) * PRICES.lambdaPerMillionRequests,
    lambda_duration:
      ((eventsInvocations * billedMs(f.eventsBatchMs) + deliveryInvocations * billedMs(f.deliveryBatchMs + RECEIVER_MS)) / 1000) *
      gb *
      PRICES.lambdaArmPerGbSecond,
    // Send (one batch of 10), the trigger's receive and its batch delete: 3 requests per 10 messages.
    sqs: ((3 * M) / DELIVERY_BATCH / M) * SQS_PER_MILLION,
    dynamodb_storage:
      ((M * f.deliveryItemBytes) / 1e9) * DELIVERY_RETENTION_MONTHS * (PRICES.dynamodbStoragePerGbMonth + PRICES.dynamodbPitrPerGbMonth),
    logs: ((deliveryInvocations * LOG_BYTES_PER_BATCH) / 1e9) * (PRICES.logsIngestionPerGb + PRICES.logsStoragePerGbMonth),
    stream_reads: 0,
  };
  return { items, total: Object.values(items).reduce((a, b) => a + b, 0) };
}

/**
 * What a million events to a paused endpoint cost: `kept`, each stored as a skipped delivery for 30
 * days (the fan-out's units, the events worker's share, the storage); `recovered`, each then sent by
 * a recovery (its queries, a recovery message through SQS, the delivery worker's attempt).
 */
function pricePaused(f: Omit<WebhookFigures, 'cost' | 'pausedCost'>): WebhookFigures['pausedCost'] {
  const M = 1_000_000;
  const gb = FUNCTION_MEMORY_MB / 1024;
  const unitsUsd = (u: CapacityUse) => u.read * PRICES.dynamodbReadPerMillion + u.write * PRICES.dynamodbWritePerMillion;
  const billedMs = (ms: number) => Math.max(1, Math.ceil(ms));
  const kept =
    unitsUsd(f.units.skipped) +
    ((M / EVENTS_BATCH) * billedMs(f.eventsBatchMs) * gb * PRICES.lambdaArmPerGbSecond) / 1000 +
    (M / EVENTS_BATCH / M) * PRICES.lambdaPerMillionRequests +
    ((M * f.deliveryItemBytes) / 1e9) * DELIVERY_RETENTION_MONTHS * (PRICES.dynamodbStoragePerGbMonth + PRICES.dynamodbPitrPerGbMonth);
  const deliveryInvocations = M / DELIVERY_BATCH;
  const recovered =
    unitsUsd(f.units.recovery) +
    unitsUsd(f.units.recoveredAttempt) +
    ((3 * M) / DELIVERY_BATCH / M) * SQS_PER_MILLION +
    (deliveryInvocations / M) * PRICES.lambdaPerMillionRequests +
    ((deliveryInvocations * billedMs(f.deliveryBatchMs + RECEIVER_MS)) / 1000) * gb * PRICES.lambdaArmPerGbSecond;
  return { kept, recovered };
}

/** The report's webhook table. */
export function renderWebhooks(f: WebhookFigures, markdown: boolean): string[] {
  const usd = (n: number) => `$${n.toFixed(n < 0.1 ? 4 : 2)}`;
  return [
    '',
    markdown ? '### Webhooks' : '== Webhooks ==',
    '',
    ...table(
      markdown,
      ['figure', 'this run'],
      [
        [
          'events expected / delivered / lost (one per consumed, revoked or expired token)',
          `${f.events.expected} / ${f.events.delivered} / ${f.events.lost}`,
        ],
        [
          'end-to-end delay, consume answered → receiver has session.consumed, p50 / p99 (local stack)',
          `${round(f.e2eMs.p50)} / ${round(f.e2eMs.p99)} ms`,
        ],
        ['deliveries per second, one delivery function (batches of 10, receiver answering at once)', String(round(f.deliveredPerSecond))],
        ['DynamoDB units per event: fan-out (read + write)', `${round(f.units.fanOut.read)} + ${round(f.units.fanOut.write)}`],
        ['DynamoDB units per successful attempt (read + write)', `${round(f.units.attempt.read)} + ${round(f.units.attempt.write)}`],
        [
          'handler time per webhook-events batch of 100 / per delivery batch of 10',
          `${round(f.eventsBatchMs)} / ${round(f.deliveryBatchMs)} ms`,
        ],
        ...Object.entries(f.cost.items).map(([k, v]) => [`cost per million events: ${k.replace(/_/g, ' ')}`, usd(v)]),
        ['cost per million events, total', usd(f.cost.total)],
        [
          'DynamoDB units per event kept for a paused endpoint / per event recovered (query) / per recovered attempt',
          `${round(f.units.skipped.write)} write / ${round(f.units.recovery.read)} read / ${round(f.units.recoveredAttempt.read)} + ${round(f.units.recoveredAttempt.write)}`,
        ],
        [
          'cost per million events to a paused endpoint: kept 30 days (skipped) / then recovered',
          `${usd(f.pausedCost.kept)} / ${usd(f.pausedCost.recovered)}`,
        ],
      ],
    ),
  ];
}

/** The JSON keys of the phase. */
export function webhooksJson(f: WebhookFigures): Record<string, unknown> {
  return {
    webhooks: {
      events_expected: f.events.expected,
      events_delivered: f.events.delivered,
      events_lost: f.events.lost,
      e2e_delay_ms_p50: round(f.e2eMs.p50),
      e2e_delay_ms_p99: round(f.e2eMs.p99),
      delivered_per_second_one_function: round(f.deliveredPerSecond),
      units_per_event: {
        read: round(f.units.fanOut.read + f.units.attempt.read),
        write: round(f.units.fanOut.write + f.units.attempt.write),
      },
      cost_per_million_events_usd: round(f.cost.total),
      paused_cost_per_million_events_usd: { kept_30_days: round(f.pausedCost.kept), recovered: round(f.pausedCost.recovered) },
    },
  };
}
