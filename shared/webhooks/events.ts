/**
 * The events a webhook endpoint receives: their types, the `data` of each, the envelope
 * `{type, timestamp, data}` they travel in, and which endpoints want which. The schemas are the
 * contract (docs/decisions.md#webhooks): the payloads are built through them (`events-from-records.ts`),
 * so an event carries exactly the fields listed here and nothing else a record holds. The interface
 * description can document them from the same schemas, as it does the requests.
 */
import * as z from 'zod/mini';
import { ApiKeyView } from '../keys/index.js';
import type { Frozen } from '../platform/route.js';
import { Id, SessionToken, Timestamp, withMeta } from '../platform/schemas.js';

const NullableId = z.nullable(Id);
const ExternalRef = withMeta(z.nullable(z.string()), { description: 'The partner’s reference, as given at create-session.' });
const Metadata = z.nullable(
  withMeta(z.record(z.string(), z.unknown()), { description: 'The metadata given at create-session.', additionalProperties: true }),
);

/** What every session event says of its token: whose it is, what it opens, and which key minted it. */
const SessionFields = {
  token: SessionToken,
  org_id: Id,
  game_id: NullableId,
  stream_id: NullableId,
  external_ref: ExternalRef,
};
const KeyId = withMeta(Id, { description: 'The API key that created the session.' });

/** A key event's key: as the key list shows it, so never the raw key nor its hash (the view has neither). */
const KeyChange = z.extend(ApiKeyView, {
  actor: withMeta(z.string().check(z.minLength(1)), {
    description: 'Who made the change: the admin’s subject (JWT `sub`), or `mcp:<key id>` for a change made through the MCP server.',
    example: 'mcp:42',
  }),
});

/**
 * THE event types and the `data` of each, field for field in the contract's order (the order a
 * payload's JSON keeps).
 */
const EVENT_DATA = {
  'session.consumed': z.object({
    token: SessionFields.token,
    session_id: Id,
    org_id: SessionFields.org_id,
    game_id: SessionFields.game_id,
    stream_id: SessionFields.stream_id,
    external_ref: SessionFields.external_ref,
    metadata: Metadata,
    player_uuid: z.nullable(z.string()),
    player_ref: withMeta(z.nullable(z.string()), {
      description:
        'The player the token was bound to at create-session (`player_ref`), which is then also `player_uuid`; null for an unbound token.',
    }),
    key_id: KeyId,
    consumed_at: Timestamp,
  }),
  'session.revoked': z.object({ ...SessionFields, key_id: KeyId, revoked_at: Timestamp }),
  // Only for a token neither consumed nor revoked, within 2 minutes of its expiry.
  'session.expired': z.object({ ...SessionFields, key_id: KeyId, expires_at: Timestamp }),
  'key.created': KeyChange,
  // Revocation and reactivation (`is_active`) included.
  'key.updated': KeyChange,
  'key.rotated': KeyChange,
  'key.deleted': KeyChange,
  // Once per key, 7 days before its `expires_at`; nobody acted, so no actor.
  'key.expiring': ApiKeyView,
  // At most once per key per window.
  'key.rate_limited': z.object({
    key_id: Id,
    window: z.enum(['minute', 'day']),
    limit: withMeta(z.int().check(z.positive()), { description: 'The window’s limit the key reached.' }),
    resets_at: withMeta(Timestamp, { description: 'When the window ends and the key may call again.' }),
  }),
  'webhook.test': z.object({ webhook_id: Id }),
};
type EventData = typeof EVENT_DATA;

/** An event type, as `type` of the envelope names it. */
export type WebhookEventType = keyof EventData;

/** Every event type, in the contract's order. */
export const WEBHOOK_EVENT_TYPES = Object.keys(EVENT_DATA) as [WebhookEventType, ...WebhookEventType[]];

/** The envelope of one type: Standard Webhooks' `{type, timestamp, data}`, `timestamp` when it happened. */
function eventSchema<T extends WebhookEventType>(type: T) {
  return z.object({ type: z.literal(type), timestamp: Timestamp, data: EVENT_DATA[type] });
}
type EventSchema<T extends WebhookEventType> = ReturnType<typeof eventSchema<T>>;

/** The schema of each type's whole payload, by type. */
export const EVENT_SCHEMAS = Object.fromEntries(WEBHOOK_EVENT_TYPES.map((type) => [type, eventSchema(type)])) as {
  readonly [T in WebhookEventType]: EventSchema<T>;
};

/** A payload as sent (of any type, or of the types named). */
export type WebhookEvent<T extends WebhookEventType = WebhookEventType> = { [K in T]: Frozen<z.output<EventSchema<K>>> }[T];

/** The `data` of one type. */
export type WebhookEventData<T extends WebhookEventType> = Frozen<z.output<EventData[T]>>;

/** An endpoint that takes every type. */
const EVERY_TYPE = '*';

/**
 * What an endpoint subscribes to: a list of distinct event types, or `["*"]` for all of them,
 * including types added later. `*` beside a type is refused: it would say two things at once.
 */
export const SubscribedEvents = withMeta(
  z.array(z.enum([...WEBHOOK_EVENT_TYPES, EVERY_TYPE])).check(
    z.minLength(1),
    z.refine((events) => new Set(events).size === events.length, 'must not repeat an event type'),
    z.refine((events) => !events.includes(EVERY_TYPE) || events.length === 1, '"*" stands alone: ["*"] subscribes to every type'),
  ),
  {
    description: 'The event types the endpoint receives, or ["*"] for all of them (types added later included).',
    example: ['session.consumed', 'key.rate_limited'],
  },
);

/**
 * Whether an endpoint subscribed to `events` receives an event of `type`. `webhook.test` does not
 * go through this: test-webhook sends it to the one endpoint it names, whatever that one takes.
 */
export function subscribes(events: readonly string[], type: WebhookEventType): boolean {
  return events.includes(EVERY_TYPE) || events.includes(type);
}
