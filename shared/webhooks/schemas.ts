/**
 * Requests and responses of webhook endpoint management (org owners and admins, bearer). The URL's
 * shape is bounded here; whether it may be used (scheme, address class) is `addresses.ts`'s
 * `checkUrl`, in the domain (`webhook-admin.ts`), which answers a refusal as a 400 on `url`. The
 * deliveries' operations (list, retry, test) answer deliveries as {@link WebhookDelivery} shows them.
 */
import * as z from 'zod/mini';
import { Id, QueryId, Timestamp, withMeta } from '../platform/schemas.js';
import { SubscribedEvents, WEBHOOK_EVENT_TYPES } from './events.js';
import { DELIVERY_STATUSES } from './schedule.js';

const WEBHOOK_BOUNDS = { url: 2048, description: 500, filterIds: 1000 } as const;

/** An endpoint's URL (create, update; the MCP tools' arguments too). */
export const Url = withMeta(z.string().check(z.minLength(1), z.maxLength(WEBHOOK_BOUNDS.url)), {
  description:
    'Where events are sent: an https:// URL whose host resolves only to public addresses (locally also http://localhost and http://127.0.0.1). At most 2,048 characters.',
  example: 'https://partner.example/hooks/gsts',
});
/** An endpoint's description. */
export const Description = withMeta(z.string().check(z.maxLength(WEBHOOK_BOUNDS.description)), { description: 'At most 500 characters.' });
/** A signing secret, as create and rotate answer it. */
export const Secret = withMeta(z.string(), {
  description:
    'The signing secret (Standard Webhooks): `whsec_` and the base64 of 32 random bytes. Shown only in this answer: store it now.',
  example: 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw',
});

/** One list of a filter as a request gives it: distinct ids, at most 1,000 (as a key's allow-list). */
const FilterIds = (kind: 'game' | 'stream') =>
  withMeta(
    z.array(Id).check(
      z.maxLength(WEBHOOK_BOUNDS.filterIds),
      z.refine((ids) => new Set(ids).size === ids.length, 'must not repeat an id'),
    ),
    {
      description: `The ${kind}s whose session events the endpoint receives: absent or null, every ${kind} of the organization; empty, none. Distinct ids, at most 1,000.`,
    },
  );

/**
 * An endpoint's filter as create and update give it (docs/decisions.md#endpoint-filters). Null or
 * absent at create: every session event; null at update clears it.
 */
export const GivenFilter = withMeta(
  z.strictObject({ game_ids: z.optional(z.nullable(FilterIds('game'))), stream_ids: z.optional(z.nullable(FilterIds('stream'))) }),
  {
    description:
      'Which session events (session.consumed, .revoked, .expired) the endpoint receives: those of a token whose game is in game_ids, or whose stream is in stream_ids. A list absent or null lets every game (or stream) through; an empty list, none. Other event types are not filtered.',
    example: { game_ids: [101], stream_ids: [] },
  },
);
export type GivenFilter = z.output<typeof GivenFilter>;

/** An endpoint's filter as stored and shown: both lists, each null for every one of its kind. */
const FilterShown = z.object({ game_ids: z.nullable(z.array(Id)), stream_ids: z.nullable(z.array(Id)) });
export type EndpointFilter = z.output<typeof FilterShown>;

export const ListWebhooksQuery = z.object({ org_id: QueryId });

export const CreateWebhookBody = withMeta(
  z.strictObject({
    org_id: Id,
    url: Url,
    events: SubscribedEvents,
    description: z.optional(z.nullable(Description)),
    filter: z.optional(z.nullable(GivenFilter)),
  }),
  { description: 'The new endpoint: org, URL and event types required.' },
);
export type CreateWebhookBody = z.output<typeof CreateWebhookBody>;

export const UpdateWebhookBody = withMeta(
  z.strictObject({
    id: Id,
    org_id: Id,
    url: z.optional(Url),
    events: z.optional(SubscribedEvents),
    description: z.optional(z.nullable(Description)),
    filter: withMeta(z.optional(z.nullable(GivenFilter)), { description: 'A new filter; null removes it (every session event).' }),
    is_active: z.optional(withMeta(z.boolean(), { description: 'false pauses deliveries to the endpoint; true resumes them.' })),
  }),
  { description: 'The endpoint and what to change; a field left out stays as it is (description: null clears it).' },
);
export type UpdateWebhookBody = z.output<typeof UpdateWebhookBody>;

export const DeleteWebhookQuery = z.object({ id: QueryId, org_id: QueryId });

export const RotateWebhookSecretBody = z.strictObject({ id: Id, org_id: Id });
export type RotateWebhookSecretBody = z.output<typeof RotateWebhookSecretBody>;

/** The fields of an endpoint's view, for the REST component below and the MCP tools' inline schemas. */
export const WebhookViewFields = {
  id: Id,
  org_id: Id,
  url: z.string(),
  events: z.array(z.string()),
  // Bounded, so that zod writes an `anyOf` rather than the type list strict MCP clients warn about.
  description: z.nullable(z.string().check(z.maxLength(WEBHOOK_BOUNDS.description))),
  filter: withMeta(z.nullable(FilterShown), {
    description:
      'Which session events the endpoint receives (game_ids, stream_ids; a null list: every one of its kind; empty: none); null: all of them.',
  }),
  key_id: withMeta(z.nullable(Id), {
    description:
      'The API key the endpoint was created with (MCP): its filter lies within that key’s allow-lists and it receives key events of that key only. Null for an endpoint an admin created.',
  }),
  is_active: z.boolean(),
  failing_since: withMeta(z.nullable(Timestamp), {
    description:
      'When the endpoint’s current run of failed attempts began (its first failed attempt since the last success); null while its last attempt succeeded, or before any attempt. Five days of failures pause it.',
  }),
  paused_at: withMeta(z.nullable(Timestamp), {
    description:
      'When the endpoint last stopped receiving deliveries (is_active went from true to false: paused by an admin or a key, a 410 answer, or five days of failures); null while it is active, or when it was paused before this was recorded.',
  }),
  created_at: Timestamp,
  updated_at: Timestamp,
};

/** An endpoint as admins see it (list, update): never a secret. */
export const WebhookView = withMeta(z.object(WebhookViewFields), { id: 'WebhookView' });
export type WebhookView = z.output<typeof WebhookView>;

/** The create-webhook answer: the endpoint and its signing secret (only here and in a rotation's answer). */
export const CreatedWebhook = withMeta(z.extend(WebhookView, { secret: Secret }), { id: 'CreatedWebhook' });
export type CreatedWebhook = z.output<typeof CreatedWebhook>;

export const DeletedWebhook = withMeta(z.object({ id: Id, deleted: z.literal(true) }), { id: 'DeletedWebhook' });

/** The rotate-webhook-secret answer: the new secret; the previous one signs beside it for 24 hours. */
export const RotatedWebhookSecret = withMeta(
  z.object({
    id: Id,
    secret: Secret,
    previous_secret_expires_at: withMeta(Timestamp, {
      description: 'Until then every delivery carries a signature with the previous secret too.',
    }),
  }),
  { id: 'RotatedWebhookSecret' },
);
export type RotatedWebhookSecret = z.output<typeof RotatedWebhookSecret>;

// --- Deliveries: list, retry, test

/** Deliveries per page when `limit` is not given, and the most a page may hold. */
const DELIVERY_PAGE = { default: 20, max: 100 } as const;

/** A delivery id as `delivery-ids.ts` makes them: `msg_<webhook id>_<ULID>`. */
export const DeliveryId = withMeta(
  z.string().check(z.regex(/^msg_[1-9][0-9]{0,15}_[0-9A-HJKMNP-TV-Z]{26}$/, 'must be a delivery id (msg_…)')),
  {
    description: 'The delivery id (`msg_<webhook id>_<ULID>`): the `webhook-id` header of each of its attempts.',
    example: 'msg_12_01JD8Y3W5Q7T0R6H1C2B3A4N5M',
  },
);

/** `limit` as the query string gives it: digits, then the page bounds. */
const DeliveryPageSize = z.pipe(
  z.pipe(z.string().check(z.regex(/^[0-9]{1,4}$/, `must be an integer from 1 to ${DELIVERY_PAGE.max}`)), z.transform(Number)),
  z.int().check(z.minimum(1), z.maximum(DELIVERY_PAGE.max)),
);

export const ListWebhookDeliveriesQuery = z.object({
  org_id: QueryId,
  webhook_id: withMeta(QueryId, { description: 'The endpoint whose deliveries to list.' }),
  cursor: withMeta(z.optional(DeliveryId), { description: '`next_cursor` of the previous page.' }),
  limit: withMeta(
    z.pipe(
      z.optional(DeliveryPageSize),
      z.transform((v) => v ?? DELIVERY_PAGE.default),
    ),
    { description: `Deliveries per page, 1 to ${DELIVERY_PAGE.max} (default ${DELIVERY_PAGE.default}).` },
  ),
});
export type ListWebhookDeliveriesQuery = z.output<typeof ListWebhookDeliveriesQuery>;

export const RetryWebhookDeliveryBody = withMeta(z.strictObject({ org_id: Id, delivery_id: DeliveryId }), {
  description: 'The delivery to attempt again now.',
});
export type RetryWebhookDeliveryBody = z.output<typeof RetryWebhookDeliveryBody>;

export const TestWebhookBody = withMeta(z.strictObject({ id: Id, org_id: Id }), {
  description: 'The endpoint to send a `webhook.test` event to (whatever event types it subscribes to).',
});
export type TestWebhookBody = z.output<typeof TestWebhookBody>;

// --- Recovery: what an endpoint has not received, sent again

/** The fields of a recovery request, for the REST body below and MCP's recover_webhook_deliveries. */
export const recoveryWindowFields = {
  since: withMeta(Timestamp, {
    description:
      'The window’s start: events that happened at or after it. Events are kept 30 days: an earlier `since` is read as 30 days ago.',
  }),
  until: withMeta(z.optional(Timestamp), {
    description: 'The window’s end (exclusive): events that happened before it. Now when left out; a later time is read as now.',
  }),
  dry_run: withMeta(z.optional(z.boolean()), {
    description: 'true: count what would be sent, send nothing (and spend no hand send). Allowed while the endpoint is paused.',
  }),
};

/** `until`, when given, must be after `since`: an empty or reversed window is most likely a mistake. */
export const windowInOrder = z.refine<{ since: string; until?: string | undefined }>(
  (body) => body.until === undefined || Date.parse(body.until) > Date.parse(body.since),
  { message: 'until must be later than since', path: ['until'] },
);

export const RecoverWebhookBody = withMeta(
  z.strictObject({ org_id: Id, id: withMeta(Id, { description: 'The endpoint.' }), ...recoveryWindowFields }).check(windowInOrder),
  {
    description:
      'Send again every event of the window that the endpoint has not received with a 2xx (skipped while it was paused, failed, exhausted), with the same `webhook-id` as before.',
  },
);
export type RecoverWebhookBody = z.output<typeof RecoverWebhookBody>;

/** What a recovery sent (or, in a dry run, would send): the REST component below and MCP's inline result. */
export const recoveryResultFields = {
  webhook_id: Id,
  since: withMeta(Timestamp, { description: 'The window’s start as read (at most 30 days ago).' }),
  until: withMeta(Timestamp, { description: 'The window’s end as read (at most now).' }),
  dry_run: z.boolean(),
  count: withMeta(z.int(), {
    description:
      'Events of the window the endpoint has not received with a 2xx, queued now (a dry run: that would be): at most 1,000 a call.',
  }),
  next_since: withMeta(z.nullable(Timestamp), {
    description:
      'The window holds more than one call sends: call again with this as `since` (and the same `until`). Null: the window is done.',
  }),
};

/** What a recovery sent (or, in a dry run, would send). */
export const WebhookRecovery = withMeta(z.object(recoveryResultFields), { id: 'WebhookRecovery' });
export type WebhookRecovery = z.output<typeof WebhookRecovery>;

const DeliveryAttemptFields = {
  at: withMeta(Timestamp, { description: 'When the attempt ended.' }),
  status_code: withMeta(z.nullable(z.int()), { description: 'The answer’s HTTP status; null when none came.' }),
  duration_ms: z.int(),
  error: withMeta(z.nullable(z.string().check(z.maxLength(1000))), {
    description: 'Why no usable answer came (`timeout`, `connection refused`, `address refused: loopback`); null when one did.',
  }),
};

/**
 * The fields of a delivery's view, for the REST component below and the MCP tools' inline schemas
 * (`attempts` there: `attemptsLog` gives the attempts' schema, a component or inline).
 */
export function deliveryViewFields<A extends z.ZodMiniType>(attemptsLog: A) {
  return {
    id: DeliveryId,
    webhook_id: Id,
    event_type: z.enum(WEBHOOK_EVENT_TYPES),
    status: withMeta(z.enum(DELIVERY_STATUSES), {
      description:
        '`pending` (an attempt is due or under way), `succeeded`, `failed` (the last attempt failed; another is scheduled), `exhausted` (no attempt left, the endpoint answered 410, or it was paused when an attempt came due) or `skipped` (the event happened while the endpoint was paused: kept 30 days, sent by recover-webhook or a retry).',
    }),
    attempts: withMeta(z.int(), { description: 'Attempts made so far.' }),
    last_status_code: withMeta(z.nullable(z.int()), { description: 'The last answer’s HTTP status; null before any, or when none came.' }),
    created_at: Timestamp,
    last_attempt_at: z.nullable(Timestamp),
    next_attempt_at: withMeta(z.nullable(Timestamp), { description: 'When the next attempt is due; null when none is scheduled.' }),
    attempts_log: withMeta(z.array(attemptsLog), { description: 'The attempts, oldest first (the last 20).' }),
  };
}

/** One attempt, inline (the MCP tools' schemas). */
export const DeliveryAttemptInline = z.object(DeliveryAttemptFields);

/**
 * A delivery's payload: the event as its receiver got it, parsed (docs/decisions.md#delivery-payload).
 * REST only: MCP's delivery views leave it out (a key's allow-lists do not bound an endpoint's events).
 */
const DeliveryPayload = withMeta(
  z.object({
    type: z.enum(WEBHOOK_EVENT_TYPES),
    timestamp: Timestamp,
    data: withMeta(z.record(z.string(), z.unknown()), { additionalProperties: true }),
  }),
  {
    description:
      'The event exactly as sent to the endpoint (`type`, `timestamp`, `data`), as JSON: serialized again (`JSON.stringify`, keys in this order) it is the signed body, byte for byte.',
  },
);

/** A delivery as org owners and admins see it (REST): the event's type and payload, its state and its attempts. */
export const WebhookDelivery = withMeta(
  z.object({
    ...deliveryViewFields(withMeta(z.object(DeliveryAttemptFields), { id: 'WebhookDeliveryAttempt' })),
    payload: DeliveryPayload,
  }),
  { id: 'WebhookDelivery' },
);
export type WebhookDelivery = z.output<typeof WebhookDelivery>;

/** One page of an endpoint's deliveries, newest first. */
export const WebhookDeliveryPage = withMeta(
  z.object({
    deliveries: z.array(WebhookDelivery),
    next_cursor: withMeta(z.nullable(z.string().check(z.maxLength(64))), {
      description: 'Pass as `cursor` for the next page; null on the last.',
    }),
  }),
  { id: 'WebhookDeliveryPage' },
);
export type WebhookDeliveryPage = z.output<typeof WebhookDeliveryPage>;
