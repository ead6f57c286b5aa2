/**
 * The event sink of the webhook workers (design "Fan-out"): each event goes to the active
 * endpoints of its organization that subscribe to its type, as one delivery per endpoint (stored,
 * then its first attempt queued). A delivery's id is derived from the event's source and the
 * endpoint, so an event published twice (a stream batch retried) makes the same deliveries, and the
 * second create leaves the first as it is.
 */
import { createHash } from 'node:crypto';
import type { Clock } from '../platform/clock.js';
import { isoTime } from '../platform/clock.js';
import type { DeliveryMessage, DeliveryRecord, SourcedEvent } from './delivery-model.js';
import { subscribes } from './events.js';
import type { WebhookRecord } from './model.js';
import type { DeliveryQueue, DeliveryStore, EventSink, WebhookStore } from './ports.js';
import { newDelivery } from './schedule.js';

/** What the fan-out needs. */
export interface FanOutDeps {
  readonly webhooks: Pick<WebhookStore, 'listByOrg'>;
  readonly deliveries: Pick<DeliveryStore, 'create'>;
  readonly queue: DeliveryQueue;
  readonly clock: Clock;
}

const CROCKFORD = '0123456789ABCDEFGHJKMNPQRSTVWXYZ';

/** `n` base-32 digits (Crockford) of a big integer, most significant first. */
function base32(value: bigint, digits: number): string {
  let out = '';
  for (let i = 0; i < digits; i++) {
    out = CROCKFORD[Number(value & 31n)]! + out;
    value >>= 5n;
  }
  return out;
}

/**
 * `msg_<webhook_id>_<ulid>`: the ULID's time is the event's (ms), its random part the first 80 bits
 * of SHA-256(`<source_id>:<webhook_id>`): the same source and endpoint make the same id.
 */
export function deliveryId(webhookId: number, sourceId: string, eventMs: number): string {
  const digest = createHash('sha256').update(`${sourceId}:${webhookId}`).digest();
  const random = BigInt(`0x${digest.subarray(0, 10).toString('hex')}`);
  return `msg_${webhookId}_${base32(BigInt(eventMs), 10)}${base32(random, 16)}`;
}

/** The DeliveryStore and DeliveryQueue behind {@link EventSink}. */
export class WebhookFanOut implements EventSink {
  constructor(private readonly deps: FanOutDeps) {}

  async publish(events: readonly SourcedEvent[]): Promise<void> {
    if (events.length === 0) return;
    const byOrg = new Map<number, SourcedEvent[]>();
    for (const sourced of events) byOrg.set(sourced.org_id, [...(byOrg.get(sourced.org_id) ?? []), sourced]);
    const now = this.deps.clock.now();
    const deliveries = (
      await Promise.all(
        [...byOrg].map(async ([orgId, sourced]) => this.deliveriesOf(await this.deps.webhooks.listByOrg(orgId), sourced, now)),
      )
    ).flat();
    if (deliveries.length === 0) return;
    await this.deps.deliveries.create(deliveries);
    const messages: DeliveryMessage[] = deliveries.map((d) => ({
      webhook_id: d.webhook_id,
      delivery_id: d.id,
      attempts: 0,
      due_at: isoTime(now),
    }));
    await this.deps.queue.send(messages);
  }

  /** One delivery per event and active endpoint that subscribes to its type. */
  private deliveriesOf(endpoints: readonly WebhookRecord[], events: readonly SourcedEvent[], nowMs: number): DeliveryRecord[] {
    const active = endpoints.filter((endpoint) => endpoint.is_active);
    return events.flatMap(({ source_id, event }) =>
      active
        .filter((endpoint) => subscribes(endpoint.events, event.type))
        .map((endpoint) => ({
          id: deliveryId(endpoint.id, source_id, Date.parse(event.timestamp)),
          org_id: endpoint.org_id,
          webhook_id: endpoint.id,
          event_type: event.type,
          body: JSON.stringify(event),
          ...newDelivery(nowMs),
          created_at: isoTime(nowMs),
          attempt_log: [],
        })),
    );
  }
}
