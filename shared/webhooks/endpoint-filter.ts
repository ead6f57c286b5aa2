/**
 * Which events an endpoint's filter and binding let through (docs/decisions.md#endpoint-filters).
 *
 * A filter `{game_ids, stream_ids}` limits the session events an endpoint receives: a token of a
 * game passes when `game_ids` is null (every game) or lists it; a token of a stream, when
 * `stream_ids` is null or lists it. So `{game_ids: [101], stream_ids: []}` is game 101 only, and
 * `{game_ids: [101], stream_ids: null}` is game 101 and every stream. A null filter lets every
 * session event through. An endpoint bound to an API key (created through MCP) receives key events
 * only of that key. Every other event type passes. Pure: no store, no AWS.
 */
import type { WebhookEvent } from './events.js';
import type { EndpointFilter, GivenFilter } from './schemas.js';

/** What an endpoint's filtering reads of it (absent in an endpoint stored before filters: none). */
export interface FilteredEndpoint {
  readonly filter?: EndpointFilter | null;
  readonly key_id?: number | null;
}

/** The allow-lists of the key an endpoint is bound to (`shared/keys`: null is every one of the org). */
export interface KeyAllowLists {
  readonly allowed_game_ids: readonly number[] | null;
  readonly allowed_stream_ids: readonly number[] | null;
}

/** What a session event says of its token's target: a game's token has `stream_id` null, a stream's `game_id` null. */
export interface SessionTarget {
  readonly game_id: number | null;
  readonly stream_id: number | null;
}

/** A given filter as stored: absent lists as null; a filter whose both lists are null is no filter (null). */
export function normalizedFilter(given: GivenFilter | null | undefined): EndpointFilter | null {
  if (!given) return null;
  const filter = { game_ids: given.game_ids ?? null, stream_ids: given.stream_ids ?? null };
  return filter.game_ids === null && filter.stream_ids === null ? null : filter;
}

/** Whether a session event about `target` passes `filter`. A token of neither kind passes only an absent filter. */
export function admitsSession(filter: EndpointFilter | null | undefined, target: SessionTarget): boolean {
  if (!filter) return true;
  if (target.game_id !== null) return passes(filter.game_ids, target.game_id);
  if (target.stream_id !== null) return passes(filter.stream_ids, target.stream_id);
  return filter.game_ids === null && filter.stream_ids === null;
}

/** Whether any session event can pass `filter` (the `session.expired` due items are kept only for an org where one can). */
export function admitsAnySession(filter: EndpointFilter | null | undefined): boolean {
  return !filter || filter.game_ids?.length !== 0 || filter.stream_ids?.length !== 0;
}

/**
 * The filter of an endpoint bound to a key: what `given` asks, within the key's allow-lists (each
 * list the intersection of both; null only where both are null). Never wider than the key.
 */
export function boundFilter(key: KeyAllowLists, given: GivenFilter | null | undefined): EndpointFilter | null {
  const asked = normalizedFilter(given);
  return normalizedFilter({
    game_ids: intersection(key.allowed_game_ids, asked?.game_ids ?? null),
    stream_ids: intersection(key.allowed_stream_ids, asked?.stream_ids ?? null),
  });
}

/**
 * Whether `endpoint` receives `event`, its type subscribed and the endpoint active (`fan-out.ts`
 * checks those): session events by its filter; key events, when it is bound to a key, only that
 * key's; anything else always.
 */
export function admitsEvent(endpoint: FilteredEndpoint, event: WebhookEvent): boolean {
  switch (event.type) {
    case 'session.consumed':
    case 'session.revoked':
    case 'session.expired':
      return admitsSession(endpoint.filter, event.data);
    case 'key.rate_limited':
      return endpoint.key_id == null || endpoint.key_id === event.data.key_id;
    case 'key.created':
    case 'key.updated':
    case 'key.rotated':
    case 'key.deleted':
    case 'key.expiring':
      return endpoint.key_id == null || endpoint.key_id === event.data.id;
    case 'webhook.test':
      return true;
  }
}

/** Whether `event` is about sessions (a bound endpoint receives those only while its key works: `fan-out.ts`). */
export function isSessionEvent(event: WebhookEvent): boolean {
  return event.type.startsWith('session.');
}

function passes(ids: readonly number[] | null, id: number): boolean {
  return ids === null || ids.includes(id);
}

/** Both lists' common ids (null: every one), in `b`'s order. */
function intersection(a: readonly number[] | null, b: readonly number[] | null): number[] | null {
  if (a === null) return b && [...b];
  if (b === null) return [...a];
  const inA = new Set(a);
  return b.filter((id) => inA.has(id));
}
