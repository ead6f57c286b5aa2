/**
 * An organization's deliveries, whoever asks (an owner or admin over REST, an API key over MCP):
 * an endpoint's deliveries a page at a time, a retry by hand, and a `webhook.test` event. Each
 * checks first that the endpoint is the org's (another org's reads as absent), and reads it beside
 * what else it needs, so listing costs one stage. Who may ask, and the audit record, are the
 * caller's (`webhook-admin.ts`, the MCP tools).
 *
 * A retry or a test does not attempt anything itself: it makes the delivery due now and puts its
 * message on the delivery queue, where the delivery worker attempts it as any other (signature,
 * address check, schedule). A paused endpoint is sent nothing: a retry or test for it is refused
 * (409) rather than queued to end `exhausted` without an attempt. Both spend the org's budget of
 * hand sends ({@link HAND_SENDS}, docs/decisions.md#webhook-hand-sends), before anything is
 * stored or queued; a retry is accepted only while no attempt of the delivery is due or under way
 * (409 `delivery_attempt_pending`), so each accepted retry is one attempt, in the attempts log.
 */
import { randomUUID } from 'node:crypto';
import type { BudgetPolicy, OrgBudget } from '../platform/org-budget.js';
import { isoTime, type Clock } from '../platform/time.js';
import { Conflict } from '../platform/errors.js';
import type { DeliveryRecord } from './delivery-model.js';
import { webhookOfDelivery } from './delivery-ids.js';
import { WebhookFanOut } from './fan-out.js';
import { webhookTest } from './events-from-records.js';
import type { WebhookRecord } from './model.js';
import type { DeliveryQueue, DeliveryStore, WebhookStore } from './ports.js';
import { retriedByHand } from './schedule.js';
import { recover, type RecoveryWindow } from './recovery.js';
import type { WebhookDelivery, WebhookDeliveryPage, WebhookRecovery } from './schemas.js';

/**
 * The org's budget of hand sends: test-webhook, retry-webhook-delivery and recover-webhook (REST and
 * MCP) share it; a recovery is one send, however many events it queues (at most 1,000). 60 a minute is one a second, beyond anything a person
 * clicking does and enough for a script re-driving a page of failures; 1,000 a day bounds what an
 * org can make the service store (a test is a delivery kept 30 days: at most 30,000 of them, about
 * 30 MB) and send on its behalf (docs/decisions.md#webhook-hand-sends).
 */
export const HAND_SENDS: BudgetPolicy = {
  name: 'webhook-sends',
  title: 'Webhook send limit exceeded',
  what: 'hand-made webhook sends (test-webhook, retry-webhook-delivery and recover-webhook together)',
  perMinute: 60,
  perDay: 1_000,
};

export interface WebhookDeliveriesDeps {
  readonly webhooks: WebhookStore;
  readonly deliveries: DeliveryStore;
  readonly queue: DeliveryQueue;
  readonly clock: Clock;
  /** The org's budget of hand sends ({@link HAND_SENDS}). */
  readonly budget: Pick<OrgBudget, 'take'>;
}

/** A delivery with its endpoint, both found in the org (what a retry acts on). */
export interface FoundDelivery {
  readonly endpoint: WebhookRecord;
  readonly delivery: DeliveryRecord;
}

/** See the module comment. */
export class WebhookDeliveries {
  constructor(private readonly deps: WebhookDeliveriesDeps) {}

  /**
   * One page of the endpoint's deliveries, newest first; undefined when the endpoint is not the
   * org's. The endpoint and the page are read together: the page is answered only once the
   * endpoint is found in the org.
   */
  async page(orgId: number, webhookId: number, limit: number, cursor?: string): Promise<WebhookDeliveryPage | undefined> {
    const [endpoint, page] = await Promise.all([
      this.deps.webhooks.find(orgId, webhookId),
      this.deps.deliveries.listByWebhook(webhookId, limit, cursor),
    ]);
    if (!endpoint) return undefined;
    return { deliveries: page.deliveries.map(deliveryView), next_cursor: page.cursor };
  }

  /** The endpoint of the org, or undefined. */
  endpoint(orgId: number, webhookId: number): Promise<WebhookRecord | undefined> {
    return this.deps.webhooks.find(orgId, webhookId);
  }

  /**
   * The delivery `id` and its endpoint, when the endpoint (named in the id) is the org's: read
   * together. Undefined when either is absent (an id that names no delivery at all too).
   */
  async find(orgId: number, id: string): Promise<FoundDelivery | undefined> {
    const webhookId = webhookOfDelivery(id);
    if (webhookId === undefined) return undefined;
    const [endpoint, delivery] = await Promise.all([this.deps.webhooks.find(orgId, webhookId), this.deps.deliveries.find(webhookId, id)]);
    return endpoint && delivery ? { endpoint, delivery } : undefined;
  }

  /**
   * A new attempt of the delivery now (`retriedByHand`), while none is due or under way: the
   * delivery is made due (compare-and-swap on its state and attempt count) and its message queued
   * with that count, so a scheduled message still on its way makes no second attempt (the worker
   * claims an attempt only at the count it was sent with).
   * @throws Conflict (the endpoint is paused), RateLimited (the org's hand sends are spent),
   * DeliveryAttemptPending (an attempt is due or under way), NotFound (the delivery expired meanwhile)
   */
  async retry({ endpoint, delivery }: FoundDelivery): Promise<WebhookDelivery> {
    refuseIfPaused(endpoint);
    await this.deps.budget.take(endpoint.org_id);
    const now = this.deps.clock.now();
    const retried = await this.deps.deliveries.markRetried(delivery, retriedByHand(delivery, now), now);
    await this.deps.queue.send([{ webhook_id: endpoint.id, delivery_id: retried.id, attempts: retried.attempts, due_at: isoTime(now) }]);
    return deliveryView(retried);
  }

  /**
   * Every event of the window the endpoint has not received with a 2xx, sent again at its normal
   * pace with its first `webhook-id` (`recovery.ts`). A dry run counts them and is allowed while
   * the endpoint is paused; a recovery is refused then (it would send nothing) and spends one of the
   * org's hand sends, however many events it queues.
   * @throws Conflict (the endpoint is paused), RateLimited (the org's hand sends are spent)
   */
  async recover(endpoint: WebhookRecord, window: RecoveryWindow): Promise<WebhookRecovery> {
    if (window.dry_run !== true) {
      refuseIfPaused(endpoint);
      await this.deps.budget.take(endpoint.org_id);
    }
    return recover(this.deps, endpoint.id, window, this.deps.clock.now());
  }

  /**
   * A `webhook.test` event to this endpoint only, whatever it subscribes to: a delivery of its own
   * (a fresh id each time: its source is this call), queued now.
   * @throws Conflict (the endpoint is paused), RateLimited (the org's hand sends are spent)
   */
  async test(endpoint: WebhookRecord): Promise<WebhookDelivery> {
    refuseIfPaused(endpoint);
    await this.deps.budget.take(endpoint.org_id);
    const event = webhookTest(endpoint.id, this.deps.clock.now());
    const sourced = { org_id: endpoint.org_id, source_id: `test:${randomUUID()}`, event };
    return deliveryView(await new WebhookFanOut(this.deps).deliverTo(endpoint, sourced));
  }
}

function refuseIfPaused(endpoint: WebhookRecord): void {
  if (!endpoint.is_active) {
    throw new Conflict(`Webhook ${endpoint.id} is paused: resume it (update-webhook with is_active: true) to send to it`);
  }
}

/**
 * A delivery as the REST deliveries list shows it: its stored body parsed as the payload (the
 * service wrote that body with `JSON.stringify`, so it parses). MCP's tools leave the payload out.
 */
function deliveryView(record: DeliveryRecord): WebhookDelivery {
  return {
    id: record.id,
    webhook_id: record.webhook_id,
    event_type: record.event_type,
    status: record.status,
    attempts: record.attempts,
    last_status_code: record.last_status_code,
    created_at: record.created_at,
    last_attempt_at: record.last_attempt_at,
    next_attempt_at: record.next_attempt_at,
    attempts_log: record.attempt_log.map((entry) => ({ ...entry })),
    payload: JSON.parse(record.body) as WebhookDelivery['payload'],
  };
}
