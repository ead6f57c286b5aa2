/**
 * One queue message of the delivery worker, start to end (docs: the design's "Delivery"): a
 * message that came early goes back on the queue for what remains; a delivery or endpoint that is
 * gone, or a message that is stale (the delivery's attempt count moved on, or another copy's
 * attempt is under way: SQS delivered it twice, or a hand retry overtook it), is dropped; a paused
 * endpoint's delivery ends exhausted without a call; otherwise one attempt, within one of the
 * endpoint's places (`EndpointGate`: a slow receiver holds a few of the worker's instances, never
 * all). The attempt is claimed on the delivery BEFORE anything is sent (compare-and-swap on the
 * attempt count, and no live claim: two copies of a message at once make one POST), signed with
 * every secret in force, the next attempt enqueued on the schedule, then recorded by the claim's
 * holder only (so every POST is in the attempts log), then the endpoint's health (and its
 * disabling, with an audit record). The rules themselves are `schedule.ts`'s; this file only
 * sequences them. No AWS.
 */
import { randomUUID } from 'node:crypto';
import { auditRecord, type AuditStore } from '../audit/index.js';
import { isoTime, type Clock } from '../platform/time.js';
import type { AttemptEntry, DeliveryMessage, DeliveryRecord } from './delivery-model.js';
import type { WebhookRecord } from './model.js';
import type { AttemptSender, DeliveryQueue, DeliveryStore, EndpointGate, SecretSealer, WebhookStore } from './ports.js';
import {
  afterAttempt,
  ATTEMPT_TIMEOUT_MS,
  attemptResult,
  endpointAfterAttempt,
  type AttemptResult,
  type DeliveryProgress,
  type DisableReason,
} from './schedule.js';
import { sealingContext } from './secret-sealer.js';
import { deliveryHeaders, secretsInForce } from './signing.js';

/**
 * How long a message waits when every place of its endpoint is taken (it is not an attempt: none is
 * counted): a second first, SQS's smallest delay, since places free as fast as the receiver
 * answers and a burst to one endpoint then follows its pace; twice as long at each further wait, up
 * to a minute, so a backlog behind an endpoint that holds its places (a slow one, timing out) costs
 * a few reads and a send per message a minute, not a second.
 */
export function busyWaitMs(waits: number): number {
  return Math.min(1_000 * 2 ** waits, 60_000);
}

/**
 * How long a claim on an attempt lasts: the attempt's limit (its address lookup included) and a
 * margin for the enqueue and the record after it. A worker that crashed holding one leaves its
 * message to come back after the queue's visibility timeout (minutes), by which time the claim
 * has ended and the copy takes it again: nothing stays pending.
 */
export const CLAIM_MS = ATTEMPT_TIMEOUT_MS + 15_000;

/** The audit action of an endpoint the delivery worker disabled. */
const DISABLE_ACTION = 'disable-webhook';

/** What one message came to (logs and tests). */
export type DeliveryStep =
  /** Sent again: due later than now. */
  | 'early'
  /** Sent again in {@link busyWaitMs}: the endpoint's places were all taken. */
  | 'busy'
  /** The delivery or its endpoint is gone (deleted; or the delivery expired). */
  | 'gone'
  /** The delivery has moved on, or another copy's attempt holds it (another copy of the message, or a hand retry, made its attempt). */
  | 'stale'
  /** Sent again for when the claim ends: another copy's attempt is under way. */
  | 'claimed'
  /** The endpoint is paused or disabled: the delivery ends exhausted, no call made. */
  | 'paused'
  /** An attempt was made and recorded. */
  | 'attempted';

/** One attempt as metrics count it. */
export interface AttemptMetric {
  readonly result: AttemptResult;
  readonly elapsedMs: number;
  /** Which delivery, to which endpoint of which org, and what came back: never the body, a signature or a secret. */
  readonly orgId: number;
  readonly webhookId: number;
  readonly deliveryId: string;
  readonly attempt: number;
  readonly statusCode: number | null;
  readonly error: string | null;
}

export interface DeliveryAttemptsDeps {
  readonly deliveries: DeliveryStore;
  readonly webhooks: WebhookStore;
  readonly gate: EndpointGate;
  readonly sealer: SecretSealer;
  readonly queue: DeliveryQueue;
  readonly sender: AttemptSender;
  readonly clock: Clock;
  readonly audit: AuditStore;
  readonly auditRetentionDays: number;
  /** Each recorded attempt (the worker turns them into metrics). */
  readonly onAttempt?: (attempt: AttemptMetric) => void;
}

/** Why an endpoint was disabled, as its audit record says it. */
const DISABLE_WORDS: Record<DisableReason, (failingSince: string | null) => string> = {
  gone: () => 'the endpoint answered 410 Gone',
  failing_for_5_days: (since) => `every attempt failed for 5 days (since ${since ?? 'unknown'})`,
};

/** See the module comment. */
export class DeliveryAttempts {
  constructor(private readonly deps: DeliveryAttemptsDeps) {}

  /** Handle one message. @throws on a store, queue or sealer failure (the queue hands the message again) */
  async deliver(message: DeliveryMessage): Promise<DeliveryStep> {
    const { deliveries, webhooks, queue, clock } = this.deps;
    if (Date.parse(message.due_at) > clock.now()) {
      // The queue waits at most 15 minutes at a time; the queue adapter sends it with what remains.
      await queue.send([message]);
      return 'early';
    }
    const delivery = await deliveries.find(message.webhook_id, message.delivery_id);
    if (!delivery) return 'gone';
    const endpoint = await webhooks.find(delivery.org_id, delivery.webhook_id);
    if (!endpoint) return 'gone';
    if (delivery.attempts !== message.attempts || delivery.status === 'succeeded') return 'stale';
    // Only a recovery sends what was skipped or has no attempt left.
    if ((delivery.status === 'exhausted' || delivery.status === 'skipped') && !message.recover) return 'stale';
    if (!endpoint.is_active) return this.endPaused(delivery);
    if (delivery.claim_until !== undefined && delivery.claim_until > clock.now()) {
      // Another copy's attempt is under way: this copy looks again once that claim has ended (no
      // place taken, nothing sent). By then the attempt is recorded (the count has moved on: this
      // copy is dropped), or its worker crashed, and this copy makes it, whenever the crashed
      // one's own message comes back.
      await queue.send([{ ...message, due_at: isoTime(delivery.claim_until + 1) }]);
      return 'claimed';
    }

    const lease = await this.deps.gate.acquire(endpoint.id, clock.now());
    if (lease === undefined) {
      const waits = message.waits ?? 0;
      await queue.send([{ ...message, waits: waits + 1, due_at: isoTime(clock.now() + busyWaitMs(waits)) }]);
      return 'busy';
    }
    try {
      return await this.attempt(delivery, endpoint, message.recover === true);
    } finally {
      await this.deps.gate.release(endpoint.id, lease);
    }
  }

  /** A delivery due while its endpoint is paused: exhausted, the attempt count unchanged, the log saying why (it can be retried by hand). */
  private async endPaused(delivery: DeliveryRecord): Promise<DeliveryStep> {
    const nowMs = this.deps.clock.now();
    const progress: DeliveryProgress = {
      status: 'exhausted',
      attempts: delivery.attempts,
      last_status_code: delivery.last_status_code,
      last_attempt_at: delivery.last_attempt_at,
      next_attempt_at: null,
    };
    const entry: AttemptEntry = { at: isoTime(nowMs), status_code: null, duration_ms: 0, error: 'endpoint disabled: not sent' };
    const recorded = await this.deps.deliveries.endUnsent(delivery, progress, entry, nowMs);
    return recorded ? 'paused' : 'stale';
  }

  /** One attempt, its record, the endpoint's health and the next attempt. */
  private async attempt(delivery: DeliveryRecord, endpoint: WebhookRecord, recovering: boolean): Promise<DeliveryStep> {
    const { deliveries, clock } = this.deps;
    const lease = randomUUID();
    const startedMs = clock.now();
    if (!(await deliveries.claim(delivery, lease, startedMs, startedMs + CLAIM_MS, recovering))) return 'stale';
    const headers = deliveryHeaders({
      id: delivery.id,
      timestampSeconds: Math.floor(startedMs / 1000),
      body: delivery.body,
      secrets: this.secrets(endpoint, startedMs),
    });
    const report = await this.deps.sender.send({ url: endpoint.url, body: delivery.body, headers: { ...headers } });
    const endedMs = clock.now();
    const outcome = { status: report.status, elapsedMs: report.elapsedMs };
    const progress = afterAttempt(delivery, outcome, endedMs);
    const result = attemptResult(outcome);
    const tooLate = result === 'failure' && report.status !== null && report.status >= 200 && report.status <= 299;
    const entry: AttemptEntry = {
      at: isoTime(endedMs),
      status_code: report.status,
      duration_ms: report.elapsedMs,
      error: report.error ?? (tooLate ? 'answered too late' : null),
    };
    // The next attempt is enqueued before this one is recorded: if the record is then lost (a
    // failure or a crash: the message comes back once the claim has ended, and the attempt is made
    // again) the queue holds a copy too many, which the attempt count turns away; the other order
    // could lose the schedule for good.
    if (progress.status === 'failed' && progress.next_attempt_at !== null) {
      await this.deps.queue.send([
        { webhook_id: delivery.webhook_id, delivery_id: delivery.id, attempts: progress.attempts, due_at: progress.next_attempt_at },
      ]);
    }
    // False only when the claim ended before the record and another copy took it: that copy's own attempt is recorded.
    if (!(await deliveries.recordAttempt(delivery, lease, progress, entry))) return 'stale';
    this.deps.onAttempt?.({
      result,
      elapsedMs: report.elapsedMs,
      orgId: delivery.org_id,
      webhookId: delivery.webhook_id,
      deliveryId: delivery.id,
      attempt: progress.attempts,
      statusCode: entry.status_code,
      error: entry.error,
    });
    await this.recordHealth(endpoint, delivery, result, endedMs);
    return 'attempted';
  }

  /** The secrets that sign now: the current one, and the one a rotation replaced while it still signs. */
  private secrets(endpoint: WebhookRecord, nowMs: number): string[] {
    const context = sealingContext(endpoint.org_id, endpoint.id);
    const open = (sealed: string) => this.deps.sealer.open(sealed, context);
    const previousSigns = endpoint.previous_secret_sealed !== null && endpoint.previous_secret_until !== null;
    return secretsInForce(
      {
        secret: open(endpoint.secret_sealed),
        // Opened only while it may still sign.
        previous_secret:
          previousSigns && nowMs < Date.parse(endpoint.previous_secret_until!) ? open(endpoint.previous_secret_sealed!) : null,
        previous_secret_until: endpoint.previous_secret_until,
      },
      nowMs,
    );
  }

  /**
   * The endpoint after the attempt: its failure streak written only when it starts or ends (not
   * at every failure), and a disabling with its audit record (once: the store disables only an
   * endpoint still active).
   */
  private async recordHealth(endpoint: WebhookRecord, delivery: DeliveryRecord, result: AttemptResult, nowMs: number): Promise<void> {
    const was = endpoint.failing_since ?? null;
    const verdict = endpointAfterAttempt({ failing_since: was }, result, nowMs);
    if (verdict.disable === null && verdict.failing_since === was) return;
    const disabled = verdict.disable !== null;
    const written = await this.deps.webhooks.recordHealth(endpoint.org_id, endpoint.id, verdict.failing_since, disabled, isoTime(nowMs));
    if (!written || verdict.disable === null) return;
    const { record, ttl } = auditRecord(
      // No request: the delivery (and its attempt) that decided it stands in for one, unique per disabling.
      { requestId: `${delivery.id}#${delivery.attempts + 1}`, sourceIp: 'internal', userAgent: 'webhook-delivery' },
      {
        orgId: endpoint.org_id,
        action: DISABLE_ACTION,
        key: null,
        actor: 'system',
        webhook_id: endpoint.id,
        changes: ['is_active'],
        diff: {
          is_active: { before: true, after: false },
          disabled_reason: { before: null, after: DISABLE_WORDS[verdict.disable](verdict.failing_since) },
        },
      },
      200,
      nowMs,
      this.deps.auditRetentionDays,
    );
    await this.deps.audit.put(record, ttl);
  }
}
