/**
 * When a delivery is attempted, what one attempt's outcome makes of the delivery, and when an
 * endpoint is disabled: the contract's delivery rules as pure functions of the outcome and the
 * time, so the delivery function, the hand-made retry and the tests (on a fake clock) share them.
 * Times are milliseconds since the epoch in, ISO 8601 in the records (as the deliveries list
 * shows them).
 */
import { isoTime } from '../platform/time.js';

const SECOND = 1000;
const MINUTE = 60 * SECOND;
const HOUR = 60 * MINUTE;
const DAY = 24 * HOUR;

/**
 * The wait before each attempt, counted from the one before (the first: none). Eight attempts over
 * 27 h 35 min: close together first, so a receiver's brief hiccup costs seconds, then spread out,
 * so one down for most of a day still gets its events.
 */
export const ATTEMPT_DELAYS_MS: readonly number[] = [0, 5 * SECOND, 5 * MINUTE, 30 * MINUTE, 2 * HOUR, 5 * HOUR, 10 * HOUR, 10 * HOUR];

/** The longest an attempt may take to succeed: a 2xx later than this is a failure (the sender aborts then). */
export const ATTEMPT_TIMEOUT_MS = 15 * SECOND;

/** How long an endpoint may fail every attempt before it is disabled. */
const FAILING_ENDPOINT_DISABLED_AFTER_MS = 5 * DAY;

/**
 * When the next attempt is due, `attemptsMade` attempts in, the last one made at `nowMs`
 * (0 attempts: a new delivery, due at once). Null when all eight are spent.
 */
export function nextAttemptAt(attemptsMade: number, nowMs: number): number | null {
  const delay = ATTEMPT_DELAYS_MS[attemptsMade];
  return delay === undefined ? null : nowMs + delay;
}

/**
 * The states of a delivery: `pending` (an attempt is due now or under way), `succeeded`, `failed` (the
 * last attempt failed and another is scheduled), `exhausted` (no attempt left, or the endpoint
 * answered 410) or `skipped` (its event happened while the endpoint was paused: kept, never
 * attempted, until a recovery or a retry sends it).
 */
export const DELIVERY_STATUSES = ['pending', 'succeeded', 'failed', 'exhausted', 'skipped'] as const;

/** One of {@link DELIVERY_STATUSES}. */
export type DeliveryStatus = (typeof DELIVERY_STATUSES)[number];

/** What the deliveries list shows of a delivery's attempts. */
export interface DeliveryProgress {
  readonly status: DeliveryStatus;
  readonly attempts: number;
  /** The last answer's HTTP status; null before any, or when the last attempt got none (timeout, connection refused). */
  readonly last_status_code: number | null;
  readonly last_attempt_at: string | null;
  readonly next_attempt_at: string | null;
}

/** How one attempt ended: the answer's status (null: none came) and how long it took. */
export interface AttemptOutcome {
  readonly status: number | null;
  readonly elapsedMs: number;
}

/**
 * What an attempt means: `success` (a 2xx within 15 s), `gone` (410: the receiver asks to be
 * disabled) or `failure` (anything else: another status, redirects included since they are not
 * followed; a 2xx too late; no answer).
 */
export type AttemptResult = 'success' | 'gone' | 'failure';

/** The meaning of an attempt's outcome. */
export function attemptResult(outcome: AttemptOutcome): AttemptResult {
  const { status, elapsedMs } = outcome;
  if (status === 410) return 'gone';
  return status !== null && status >= 200 && status <= 299 && elapsedMs <= ATTEMPT_TIMEOUT_MS ? 'success' : 'failure';
}

/** A new delivery: no attempt yet, the first due at once. */
export function newDelivery(nowMs: number): DeliveryProgress {
  return { status: 'pending', attempts: 0, last_status_code: null, last_attempt_at: null, next_attempt_at: isoTime(nowMs) };
}

/** A delivery of an event that happened while its endpoint was paused: kept for a recovery, nothing due. */
export function skippedDelivery(): DeliveryProgress {
  return { status: 'skipped', attempts: 0, last_status_code: null, last_attempt_at: null, next_attempt_at: null };
}

/**
 * The delivery after an attempt that ended at `nowMs`: succeeded; failed with the next attempt
 * scheduled; or exhausted, when that was the eighth attempt or the endpoint answered 410 (which
 * disables it, {@link endpointAfterAttempt}, so nothing more goes there).
 */
export function afterAttempt(delivery: Pick<DeliveryProgress, 'attempts'>, outcome: AttemptOutcome, nowMs: number): DeliveryProgress {
  const attempts = delivery.attempts + 1;
  const result = attemptResult(outcome);
  const next = result === 'failure' ? nextAttemptAt(attempts, nowMs) : null;
  const status: DeliveryStatus = result === 'success' ? 'succeeded' : next === null ? 'exhausted' : 'failed';
  return {
    status,
    attempts,
    last_status_code: outcome.status,
    last_attempt_at: isoTime(nowMs),
    next_attempt_at: next === null ? null : isoTime(next),
  };
}

/**
 * How long past its `next_attempt_at` a delivery still counts as due: beyond it, no attempt is
 * coming (its message was lost), so a retry by hand is accepted. Longer than anything that delays
 * a message that still exists: a crashed worker's message comes back after the queue's visibility
 * timeout (6 × the worker's 120 s), and a message waiting for its endpoint's places waits at most a
 * minute at a time.
 */
export const STUCK_AFTER_MS = 15 * MINUTE;

/**
 * The delivery once an admin asks for a new attempt now (retry-webhook-delivery): accepted only
 * while no attempt is due or under way (the store's condition, docs/decisions.md#webhook-hand-sends);
 * a succeeded one is sent again (receivers drop repeats by `webhook-id`), an exhausted one gets one
 * more attempt (past the eighth, a failure leaves it exhausted: no new schedule).
 */
export function retriedByHand(delivery: DeliveryProgress, nowMs: number): DeliveryProgress {
  return { ...delivery, status: 'pending', next_attempt_at: isoTime(nowMs) };
}

/** What the delivery rules keep of an endpoint: since when every attempt to it has failed (null: the last one succeeded, or none yet). */
export interface EndpointHealth {
  readonly failing_since: string | null;
}

/** Why an endpoint gets disabled: it answered 410, or every attempt failed for 5 days. */
export type DisableReason = 'gone' | 'failing_for_5_days';

/** An endpoint's health after an attempt, and whether it must now be disabled (and why: the audit record says it). */
export interface EndpointVerdict extends EndpointHealth {
  readonly disable: DisableReason | null;
}

/**
 * The endpoint after one of its attempts ended at `nowMs`. A success ends the failure streak; a
 * failure starts one or extends it, and disables the endpoint once the streak is 5 days long (its
 * first failure at least 5 days ago and none succeeded since); a 410 disables it at once.
 */
export function endpointAfterAttempt(health: EndpointHealth, result: AttemptResult, nowMs: number): EndpointVerdict {
  if (result === 'success') return { failing_since: null, disable: null };
  const failing_since = health.failing_since ?? isoTime(nowMs);
  if (result === 'gone') return { failing_since, disable: 'gone' };
  const failingForMs = nowMs - Date.parse(failing_since);
  return { failing_since, disable: failingForMs >= FAILING_ENDPOINT_DISABLED_AFTER_MS ? 'failing_for_5_days' : null };
}
