/**
 * The event types an endpoint may subscribe to, for the webhook form's checkboxes, and how its
 * subscription reads in the list. Listed here rather than imported from shared/webhooks/events.ts,
 * which would bring its schemas (zod) into the console's bundle; the compile-time check below ties
 * the list to the interface description's own enum (test/support/openapi-paths.ts), so a type
 * added to the service and not here fails `tsc`.
 */
import type { Webhook, WebhookDelivery } from '../api';

/** Every event type, in the contract's order (docs/webhooks.md#events), with what sends it. */
export const EVENT_TYPES = [
  ['session.consumed', 'a token is consumed'],
  ['session.revoked', 'a token is revoked'],
  ['session.expired', 'a token expires unused'],
  ['key.created', 'a key is created'],
  ['key.updated', 'a key changes (revoked and reactivated too)'],
  ['key.rotated', 'a key is rotated'],
  ['key.deleted', 'a key is deleted'],
  ['key.expiring', '7 days before a key expires'],
  ['key.rate_limited', 'a key reaches its limit'],
  ['webhook.test', '“Send test event” sends it whatever is chosen here'],
] as const satisfies readonly (readonly [WebhookDelivery['event_type'], string])[];

type Listed = (typeof EVENT_TYPES)[number][0];
// Fails to compile when the service has an event type this list lacks.
const EVERY_TYPE_LISTED: [Exclude<WebhookDelivery['event_type'], Listed>] extends [never] ? true : false = true;
void EVERY_TYPE_LISTED;

/** The subscription to every type, those added later included. */
export const ALL_EVENTS = '*';

/** What an endpoint's `events` may hold: a type, or `*` alone. */
export type SubscribedEvent = WebhookDelivery['event_type'] | typeof ALL_EVENTS;

/** An endpoint's events as the list shows them. */
export function eventsText(events: readonly string[]): string {
  return events.includes(ALL_EVENTS) ? 'All events' : events.join(', ');
}

/** An endpoint's filter as the list shows it: the games and streams whose session events it lets through. */
export function filterText(filter: NonNullable<Webhook['filter']>): string {
  const part = (ids: readonly number[] | null, kind: string) =>
    ids === null ? `every ${kind}` : ids.length === 0 ? `no ${kind}` : `${kind}s ${ids.join(', ')}`;
  return `Sessions of ${part(filter.game_ids, 'game')}; ${part(filter.stream_ids, 'stream')}`;
}
