/** The webhooks feature's ports: where endpoints are stored, and how their secrets are sealed. */
import type { AttemptEntry, DeliveryMessage, DeliveryRecord, DueItem, SourcedEvent } from './delivery-model.js';
import type { SealedSecrets, WebhookChanges, WebhookRecord } from './model.js';
import type { DeliveryProgress } from './schedule.js';

/** Endpoints of organizations (`webhook-store.ts`: items of the catalog table). */
export interface WebhookStore {
  /** The org's endpoints by id (strongly consistent). */
  listByOrg(orgId: number): Promise<WebhookRecord[]>;
  /** One endpoint of the org; undefined when absent or another org's. */
  find(orgId: number, id: number): Promise<WebhookRecord | undefined>;
  /**
   * Store a new endpoint while the org has fewer than `max` (one transaction with the org's count).
   * @throws Conflict when the org already has `max`
   */
  create(record: WebhookRecord, max: number): Promise<void>;
  /**
   * Change an endpoint of the org; undefined when absent. Returns it as it was and as it is now. A
   * pause sets `paused_at` when the endpoint was active and keeps it when it was already paused; a
   * resume removes it.
   */
  update(
    orgId: number,
    id: number,
    changes: WebhookChanges,
    atIso: string,
  ): Promise<{ before: WebhookRecord; after: WebhookRecord } | undefined>;
  /**
   * Replace the sealed secrets, only while the current one is still `expected` (a concurrent
   * rotation is refused, not lost). @returns false when the endpoint is absent or changed meanwhile
   */
  replaceSecrets(orgId: number, id: number, expected: string, secrets: SealedSecrets, atIso: string): Promise<boolean>;
  /** Delete an endpoint of the org (and count it out). @returns false when absent */
  remove(orgId: number, id: number): Promise<boolean>;
  /**
   * Record an endpoint's health after an attempt (`failing_since`), and with `disable` turn it off
   * (`is_active` false, `paused_at` then), only while it exists and, to disable, while it is still active (so of two
   * attempts that both disable it, one does). @returns false when nothing was written for that reason
   */
  recordHealth(orgId: number, id: number, failingSince: string | null, disable: boolean, atIso: string): Promise<boolean>;
}

/**
 * Seals endpoint secrets for storage and opens them for signing. `context` binds a sealed value to
 * its place (the org and endpoint): one copied to another item does not open.
 */
export interface SecretSealer {
  seal(secret: string, context: string): string;
  /** @throws when the value was not sealed by this key for this context */
  open(sealed: string, context: string): string;
}

/** Deliveries (`delivery-store.ts`: items of the webhooks table, kept `DELIVERY_RETENTION_DAYS` days). */
export interface DeliveryStore {
  /** Store new deliveries; one whose id is already stored (its source read again) is left as it is. */
  create(deliveries: readonly DeliveryRecord[]): Promise<void>;
  find(webhookId: number, id: string): Promise<DeliveryRecord | undefined>;
  /** An endpoint's deliveries, newest first, a page at a time (`cursor`: the last id of the page before). */
  listByWebhook(webhookId: number, limit: number, cursor?: string): Promise<{ deliveries: DeliveryRecord[]; cursor: string | null }>;
  /**
   * An endpoint's deliveries whose ids are between `from` and `to` (inclusive), oldest first, a
   * page of at most `limit` at a time (`after`: the last id of the page before; the answer's
   * cursor is null when no more are in the range).
   */
  listRange(
    webhookId: number,
    range: { readonly from: string; readonly to: string },
    limit: number,
    after?: string,
  ): Promise<{ deliveries: DeliveryRecord[]; cursor: string | null }>;
  /**
   * Take the delivery's next attempt for `lease` until `untilMs`, before anything is sent: only
   * while it still has the attempt count it was read with, is waiting for an attempt (`pending` or
   * `failed`), and no other lease is live (none, or one ended by `nowMs`: its holder crashed). So
   * two copies of a message at once make one attempt. @returns false when it may not be taken
   */
  claim(
    delivery: Pick<DeliveryRecord, 'webhook_id' | 'id' | 'attempts'>,
    lease: string,
    nowMs: number,
    untilMs: number,
    /** A recovery's attempt: `skipped` and `exhausted` deliveries may be taken too. */
    recovering?: boolean,
  ): Promise<boolean>;
  /**
   * Record the attempt `lease` made (its progress, its entry appended to the log of `delivery` as
   * it was read) and clear the claim, only while `lease` still holds it: no read is needed here,
   * and no other attempt's entry can be lost (only the holder records).
   * @returns false when the lease was lost (it ended and another copy took it), or the delivery is gone
   */
  recordAttempt(
    delivery: Pick<DeliveryRecord, 'webhook_id' | 'id' | 'attempts' | 'attempt_log'>,
    lease: string,
    progress: DeliveryProgress,
    entry: AttemptEntry,
  ): Promise<boolean>;
  /**
   * End a delivery without an attempt (its endpoint paused), its entry saying why, while it still has
   * the count it was read with and no attempt holds it. @returns false otherwise
   */
  endUnsent(
    delivery: Pick<DeliveryRecord, 'webhook_id' | 'id' | 'attempts' | 'attempt_log'>,
    progress: DeliveryProgress,
    entry: AttemptEntry,
    nowMs: number,
  ): Promise<boolean>;
  /**
   * Make a delivery due now (a retry by hand), only while it still has the attempt count it was
   * read with and no attempt of it is due or under way (`schedule.ts` `STUCK_AFTER_MS`).
   * @returns the delivery as it is now
   * @throws DeliveryAttemptPending (an attempt is due or under way, or one was recorded since the read), NotFound (gone)
   */
  markRetried(
    delivery: Pick<DeliveryRecord, 'webhook_id' | 'id' | 'attempts' | 'org_id'>,
    progress: DeliveryProgress,
    nowMs: number,
  ): Promise<DeliveryRecord>;
}

/** Where delivery attempts wait their turn (SQS in AWS; an in-process queue in the local run). */
export interface DeliveryQueue {
  /** Enqueue each message, delayed until its `due_at` (at most 15 minutes at a time). */
  send(messages: readonly DeliveryMessage[]): Promise<void>;
}

/**
 * At most a few attempts under way per endpoint at once, so one slow receiver holds a few of the
 * delivery function's instances, not all of them. A lease expires on its own (a crashed attempt
 * frees its place after the attempt timeout).
 */
export interface EndpointGate {
  /** A lease on one of the endpoint's places; undefined when every place is taken. */
  acquire(webhookId: number, nowMs: number): Promise<string | undefined>;
  release(webhookId: number, lease: string): Promise<void>;
}

/** Where events go once they happened: to their org's subscribed endpoints, as deliveries (`fan-out.ts`). */
export interface EventSink {
  publish(events: readonly SourcedEvent[]): Promise<void>;
}

/**
 * A stream record the event rules cannot read (a deterministic failure: reading it again fails
 * again), kept as the stream handed it, with why. Handing `record` to the events worker again
 * (`{"Records":[record]}`) replays it.
 */
export interface UnreadableRecord {
  /** Tells this message from the stream triggers' own on the same queue (their batch info). */
  readonly kind: 'unreadable-record';
  /** Why it could not become an event (the error's message). */
  readonly error: string;
  /** When it was kept (ISO 8601). */
  readonly kept_at: string;
  /** The record, in the stream's wire format (DynamoDB's attribute values). */
  readonly record: StreamRecord;
}

/** A DynamoDB stream record (aws-lambda's `DynamoDBRecord`), as far as keeping one reads it. */
export interface StreamRecord {
  readonly eventID?: string;
  readonly eventName?: string;
  readonly dynamodb?: { readonly NewImage?: unknown; readonly OldImage?: unknown };
}

/**
 * Where the events worker keeps what it cannot read, for an operator (docs/runbook.md#webhook-records-unreadable):
 * the stream failures queue in AWS, the local run's failures list.
 */
export interface UnreadableRecords {
  /** Keep one record. @throws when it was not kept (the batch then fails from it, and the stream hands it again) */
  keep(record: UnreadableRecord): Promise<void>;
}

/** Events due by time (`due-store.ts`: items of the webhooks table by due minute, sharded), and how far the sweep has come. */
export interface DueStore {
  add(items: readonly DueItem[]): Promise<void>;
  /** Every item of the minute starting at `minuteMs` (epoch ms), soonest first (whether due yet or not). */
  dueIn(minuteMs: number): Promise<DueItem[]>;
  /** Forget items once handled (their events handed on, or found not to happen). */
  done(items: readonly DueItem[]): Promise<void>;
  /** The oldest minute (epoch ms) not yet swept whole; undefined before the first sweep. */
  watermark(): Promise<number | undefined>;
  /** Move the watermark to `minuteMs`; never back (a slower sweep beside a later one leaves the later one's). */
  advanceWatermark(minuteMs: number): Promise<void>;
}

/** One attempt's request: where, and exactly what (the body as signed, the Standard Webhooks headers). */
export interface AttemptRequest {
  readonly url: string;
  readonly body: string;
  readonly headers: Readonly<Record<string, string>>;
}

/** How one attempt ended, as the deliveries list shows it. */
export interface AttemptReport {
  /** The answer's HTTP status; null when none came. */
  readonly status: number | null;
  /** From the attempt's start to the answer's status line (or to the failure). */
  readonly elapsedMs: number;
  /** Why no usable answer came (`timeout`, `connection refused`, `address refused: private`); null when one did. */
  readonly error: string | null;
}

/** Makes one HTTP attempt of a delivery (`sender.ts`): address checked and pinned, no redirect followed. */
export interface AttemptSender {
  send(request: AttemptRequest): Promise<AttemptReport>;
}
