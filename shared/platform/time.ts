/**
 * Time: the domain's clock ({@link Clock}, {@link isoTime}), then the request's deadline: the time
 * by which its DynamoDB calls must have ended so that the function still answers inside its
 * timeout. The bundles set it around their handler ({@link withinDeadline}: the middlewares before
 * it make no DynamoDB call); the DynamoDB client's retries and its reads that page or batch read
 * it (`shared/platform/dynamo/client.ts`) and start no attempt, and no further call, that could end
 * after it. It follows the request across awaits (AsyncLocalStorage), so
 * concurrent requests of the local run keep their own.
 */
import { AsyncLocalStorage } from 'node:async_hooks';

/**
 * Time kept after the deadline for what follows the last DynamoDB call: the rest of the handler,
 * rendering the answer, its log line and metrics.
 */
export const ANSWER_MARGIN_MS = 1_000;

/**
 * A point in time, in milliseconds since the epoch, read against `Date.now()` (tests move it with
 * jest's fake timers).
 */
export type Deadline = number;

/** What a Lambda context offers to compute a deadline from (absent outside Lambda: no deadline). */
export interface RemainingTime {
  getRemainingTimeInMillis?(): number;
}

const current = new AsyncLocalStorage<Deadline | undefined>();

/** Run `work` with `deadline` as the deadline of everything it does, across awaits. */
export function withDeadline<T>(deadline: Deadline | undefined, work: () => T): T {
  return current.run(deadline, work);
}

/** The deadline of a Lambda invocation: the time it has left, less {@link ANSWER_MARGIN_MS}. */
export function invocationDeadline(context: RemainingTime): Deadline | undefined {
  const remaining = context.getRemainingTimeInMillis?.();
  return remaining === undefined ? undefined : Date.now() + remaining - ANSWER_MARGIN_MS;
}

/** A Lambda handler that runs under its invocation's deadline ({@link invocationDeadline}). */
export function withinDeadline<E, C extends RemainingTime, R>(handler: (event: E, context: C) => Promise<R>) {
  return (event: E, context: C): Promise<R> => withDeadline(invocationDeadline(context), () => handler(event, context));
}

/**
 * How far past the deadline a follow-up may run ({@link asFollowUp}): one DynamoDB attempt at its
 * worst (650 ms, `WORST_CASE_ATTEMPT_MS`, a unit test holds the two together) and a little, well
 * inside {@link ANSWER_MARGIN_MS}, so the answer still has 300 ms.
 */
export const FOLLOW_UP_GRACE_MS = 700;

/**
 * Run the follow-up of a change already made (storing its answer for repeats, an undo, an audit
 * correction, a take-back) with the deadline moved {@link FOLLOW_UP_GRACE_MS} into the answer
 * margin: refused at the deadline, it would leave the change answered as a 503 with nothing stored
 * or undone; with the grace it gets its attempt and still ends before the function's timeout.
 * Call it where the follow-up's DynamoDB calls start (the context is taken then).
 */
export function asFollowUp<T>(work: () => Promise<T>): Promise<T> {
  const deadline = current.getStore();
  return deadline === undefined ? work() : current.run(deadline + FOLLOW_UP_GRACE_MS, work);
}

/** Milliseconds left before the current request's deadline; Infinity outside a request (scripts, the seed). */
export function timeLeftMs(): number {
  const deadline = current.getStore();
  return deadline === undefined ? Infinity : deadline - Date.now();
}

// --- The clock

/** The time source of the domain; tests inject a fixed or moving clock. */
export interface Clock {
  /** Milliseconds since the epoch. */
  now(): number;
}

/** Wall-clock time. */
export const systemClock: Clock = { now: () => Date.now() };

/** ISO 8601 UTC with milliseconds, the one date-time format of the interface. */
export function isoTime(ms: number): string {
  return new Date(ms).toISOString();
}
