/**
 * What the delivery side of webhooks stores and passes around: a delivery (one event for one
 * endpoint, with its attempts), the queue message that asks for its next attempt, an event on its
 * way to the org's endpoints, and a due item (an event that happens by time, not by a write:
 * `session.expired`, `key.expiring`). docs/webhooks.md describes them for partners.
 */
import type { DeliveryStatus } from './schedule.js';
import type { WebhookEvent, WebhookEventType } from './events.js';

/** One attempt of a delivery, as the deliveries list shows it. */
export interface AttemptEntry {
  /** ISO 8601, when the attempt ended. */
  readonly at: string;
  /** The answer's HTTP status; null when none came (timeout, refused connection, refused address). */
  readonly status_code: number | null;
  readonly duration_ms: number;
  /** Why no usable answer came (`timeout`, `connection refused`, `address refused: loopback`); null when one did. */
  readonly error: string | null;
}

/** At most this many attempts are kept on a delivery (the 8 scheduled ones and hand retries; the oldest go first). */
export const MAX_ATTEMPT_ENTRIES = 20;

/** Deliveries are kept this long after their creation (DynamoDB TTL), then gone from the list. */
export const DELIVERY_RETENTION_DAYS = 30;

/** One event for one endpoint, and how its delivery went. */
export interface DeliveryRecord {
  /**
   * `msg_<webhook_id>_<ulid>`: the Standard Webhooks `webhook-id`, the same at every attempt. The
   * ULID's time is the event's, so an endpoint's deliveries sort newest first by id; its random
   * part is derived from the event's source and the endpoint, so a source read twice (a stream
   * batch retried) makes the same id, and the second create is a no-op.
   */
  readonly id: string;
  readonly org_id: number;
  readonly webhook_id: number;
  readonly event_type: WebhookEventType;
  /** The body exactly as signed and sent, fixed at creation: every attempt sends the same bytes. */
  readonly body: string;
  readonly status: DeliveryStatus;
  readonly attempts: number;
  readonly last_status_code: number | null;
  /** ISO 8601. */
  readonly created_at: string;
  readonly last_attempt_at: string | null;
  readonly next_attempt_at: string | null;
  /** Oldest first, at most {@link MAX_ATTEMPT_ENTRIES}. */
  readonly attempt_log: readonly AttemptEntry[];
  /**
   * The attempt under way, while one is: the delivery worker's lease on it (taken before the POST,
   * cleared by the attempt's record) and when the lease ends (epoch ms), after which another copy of
   * the message may take it (the holder crashed). Absent when no attempt is under way; never shown.
   */
  readonly claim_id?: string;
  readonly claim_until?: number;
  /** The claim whose attempt was recorded last: a repeated record of it (its answer lost) is accepted, not refused. Never shown. */
  readonly recorded_claim?: string;
}

/**
 * The queue message that asks for a delivery's next attempt. `attempts` is the delivery's attempt
 * count when the message was sent: an attempt is claimed only while the delivery still has that
 * count and no other attempt holds it (compare-and-swap, before the POST), so a message delivered
 * twice (SQS is at least once, even two copies at once) or overtaken by a hand retry makes no
 * second attempt.
 */
export interface DeliveryMessage {
  readonly webhook_id: number;
  readonly delivery_id: string;
  readonly attempts: number;
  /** ISO 8601: not before then. Beyond the queue's 15-minute delay maximum, the message is sent again with what remains. */
  readonly due_at: string;
  /** How many times it found its endpoint's places all taken (absent: none): each wait is twice the last. */
  readonly waits?: number;
  /**
   * Sent by recover-webhook (absent: a scheduled attempt): it may also take a delivery that is
   * `skipped` or `exhausted`, which no scheduled message does (docs/webhooks.md#recovery).
   */
  readonly recover?: true;
}

/** An event on its way to the endpoints of its organization that subscribe to its type. */
export interface SourcedEvent {
  readonly org_id: number;
  /**
   * What caused it, unique per event and the same when the cause is read again (a stream record's
   * `eventID`, a due item's key): with the endpoint, it makes the delivery id.
   */
  readonly source_id: string;
  readonly event: WebhookEvent;
}

/** An event that happens by time, not by a write: checked by the due sweep when its minute has passed. */
export interface DueItem {
  readonly kind: 'session.expired' | 'key.expiring';
  readonly org_id: number;
  /** The token (`session.expired`) or the key id (`key.expiring`). */
  readonly ref: string;
  /** ISO 8601: when it is due (the token's `expires_at`; 7 days before the key's `expires_at`). */
  readonly due_at: string;
}
