/**
 * Events to deliveries: each event goes to every endpoint of its organization that subscribes to
 * its type and whose filter and binding let it through (`endpoint-filter.ts`), as one delivery per
 * endpoint: for an active endpoint stored, then its first attempt enqueued, due now; for a paused
 * one stored as `skipped`, nothing enqueued, so that recover-webhook can send it once the endpoint
 * is back (docs/webhooks.md#recovery). An endpoint bound
 * to a key receives session events only while that key works (not revoked, expired or deleted:
 * docs/decisions.md#endpoint-filters); each such key is read once per org per batch, only when a
 * session event would go to its endpoint. The org's endpoints are read once per org per batch. A
 * delivery's id comes from the event's source and the endpoint (`delivery-ids.ts`), so a batch
 * read again makes the same ids: the store leaves a delivery already there as it is, and the
 * message enqueued again is turned away by the attempt count if the first one has run. No AWS.
 */
import { isoTime, type Clock } from '../platform/time.js';
import { deliveryId } from './delivery-ids.js';
import type { DeliveryMessage, DeliveryRecord, SourcedEvent } from './delivery-model.js';
import type { ApiKeyRecord } from '../keys/index.js';
import { admitsEvent, isSessionEvent } from './endpoint-filter.js';
import { subscribes } from './events.js';
import type { WebhookRecord } from './model.js';
import type { DeliveryQueue, DeliveryStore, EventSink, WebhookStore } from './ports.js';
import { newDelivery, skippedDelivery, type DeliveryProgress } from './schedule.js';

/** Deliveries stored (conditional puts side by side) and enqueued at a time. */
const CREATES_AT_ONCE = 25;

export interface FanOutDeps {
  readonly webhooks: WebhookStore;
  readonly deliveries: DeliveryStore;
  readonly queue: DeliveryQueue;
  readonly clock: Clock;
  /** The keys endpoints are bound to; `publish` needs them once a bound endpoint is due a session event (`deliverTo` never). */
  readonly keys?: BoundKeys;
}

/** A key by id, strongly consistent (`shared/keys`' id item). */
export interface BoundKeys {
  findInOrg(orgId: number, id: number): Promise<ApiKeyRecord | undefined>;
}

/** See the module comment. */
export class WebhookFanOut implements EventSink {
  constructor(private readonly deps: FanOutDeps) {}

  async publish(events: readonly SourcedEvent[]): Promise<void> {
    const byOrg = new Map<number, SourcedEvent[]>();
    for (const sourced of events) {
      // webhook.test goes only to the endpoint test-webhook names ({@link deliverTo}), never to subscribers.
      if (sourced.event.type === 'webhook.test') continue;
      byOrg.set(sourced.org_id, [...(byOrg.get(sourced.org_id) ?? []), sourced]);
    }
    const nowMs = this.deps.clock.now();
    const perOrg = await Promise.all(
      [...byOrg].map(async ([orgId, orgEvents]) => {
        const endpoints = await this.deps.webhooks.listByOrg(orgId);
        const wanted = orgEvents.flatMap((sourced) =>
          endpoints
            .filter((endpoint) => subscribes(endpoint.events, sourced.event.type) && admitsEvent(endpoint, sourced.event))
            .map((endpoint) => ({ endpoint, sourced })),
        );
        const needKey = (w: (typeof wanted)[number]) => w.endpoint.key_id != null && isSessionEvent(w.sourced.event);
        const working = await this.workingKeys(
          orgId,
          wanted.filter(needKey).map((w) => w.endpoint.key_id!),
          nowMs,
        );
        return wanted
          .filter((w) => !needKey(w) || working.has(w.endpoint.key_id!))
          .map(({ endpoint, sourced }) => delivery(endpoint, sourced, nowMs, endpoint.is_active ? newDelivery(nowMs) : skippedDelivery()));
      }),
    );
    await this.start(perOrg.flat(), nowMs);
  }

  /**
   * One delivery of `sourced` to `endpoint`, whatever it subscribes to or whether it is active
   * (test-webhook: the admin asked for this one; a paused endpoint's delivery ends exhausted in the
   * worker, which says so in the deliveries list). @returns the delivery as created
   */
  async deliverTo(endpoint: WebhookRecord, sourced: SourcedEvent): Promise<DeliveryRecord> {
    const nowMs = this.deps.clock.now();
    const record = delivery(endpoint, sourced, nowMs, newDelivery(nowMs));
    await this.start([record], nowMs);
    return record;
  }

  /** Which of the org's keys `ids` work at `nowMs`: present, active, not expired. One read per distinct key. */
  private async workingKeys(orgId: number, ids: readonly number[], nowMs: number): Promise<Set<number>> {
    const distinct = [...new Set(ids)];
    if (distinct.length === 0) return new Set();
    const { keys } = this.deps;
    if (!keys) throw new Error('fan-out of session events to key-bound endpoints needs the keys (FanOutDeps.keys)');
    // At most one per endpoint of the org (20 at most): a bounded set of concurrent reads.
    const found = await Promise.all(distinct.map((id) => keys.findInOrg(orgId, id)));
    return new Set(found.filter((key) => key !== undefined && keyWorks(key, nowMs)).map((key) => key!.id));
  }

  /**
   * Store the deliveries, then enqueue their first attempts (in that order: a message always finds
   * its delivery; a skipped one has none), {@link CREATES_AT_ONCE} at a time: a batch of 100 events for 20 endpoints is 2,000
   * conditional puts, which all at once would queue on the client's connections and heat the
   * endpoints' partitions in one burst.
   */
  private async start(deliveries: readonly DeliveryRecord[], nowMs: number): Promise<void> {
    for (let from = 0; from < deliveries.length; from += CREATES_AT_ONCE) {
      const slice = deliveries.slice(from, from + CREATES_AT_ONCE);
      await this.deps.deliveries.create(slice);
      const messages: DeliveryMessage[] = slice
        .filter((d) => d.status !== 'skipped')
        .map((d) => ({
          webhook_id: d.webhook_id,
          delivery_id: d.id,
          attempts: 0,
          due_at: isoTime(nowMs),
        }));
      await this.deps.queue.send(messages);
    }
  }
}

/** Whether a key still works: active (not revoked) and not past its expiry. */
function keyWorks(key: ApiKeyRecord, nowMs: number): boolean {
  return key.is_active && (key.expires_at === null || Date.parse(key.expires_at) > nowMs);
}

/** The delivery of one event to one endpoint, new at `nowMs`, with its first progress. */
function delivery(endpoint: WebhookRecord, sourced: SourcedEvent, nowMs: number, progress: DeliveryProgress): DeliveryRecord {
  const { event } = sourced;
  return {
    id: deliveryId(endpoint.id, event.timestamp, sourced.source_id),
    org_id: endpoint.org_id,
    webhook_id: endpoint.id,
    event_type: event.type,
    body: JSON.stringify(event),
    ...progress,
    created_at: isoTime(nowMs),
    attempt_log: [],
  };
}
