/**
 * The delivery rules on a fake clock: the retry schedule, what each outcome makes of a delivery,
 * a retry by hand, and when an endpoint is disabled (410 at once; every attempt failed for 5 days).
 */
import { describe, expect, test } from '@jest/globals';
import type { Clock } from '../../shared/platform/time.js';
import {
  ATTEMPT_DELAYS_MS,
  ATTEMPT_TIMEOUT_MS,
  afterAttempt,
  attemptResult,
  endpointAfterAttempt,
  newDelivery,
  nextAttemptAt,
  retriedByHand,
  type AttemptOutcome,
  type DeliveryProgress,
  type EndpointHealth,
} from '../../shared/webhooks/schedule.js';

const START = Date.UTC(2026, 10, 23, 10);
const S = 1000;
const M = 60 * S;
const H = 60 * M;
const D = 24 * H;
const iso = (ms: number) => new Date(ms).toISOString();

/** A clock the test moves by hand. */
function fakeClock(startMs = START) {
  let now = startMs;
  const clock: Clock & { advanceTo(ms: number): void; advance(ms: number): void } = {
    now: () => now,
    advanceTo: (ms) => {
      expect(ms).toBeGreaterThanOrEqual(now);
      now = ms;
    },
    advance: (ms) => (now += ms),
  };
  return clock;
}

const answered = (status: number, elapsedMs = 120): AttemptOutcome => ({ status, elapsedMs });
const noAnswer: AttemptOutcome = { status: null, elapsedMs: ATTEMPT_TIMEOUT_MS };

/** Runs a delivery on the clock, each attempt made when due, with the outcomes given in turn (the last one repeated); returns each attempt's time. */
function run(clock: ReturnType<typeof fakeClock>, outcomes: AttemptOutcome[]): { delivery: DeliveryProgress; attemptTimes: number[] } {
  let delivery = newDelivery(clock.now());
  const attemptTimes: number[] = [];
  while (delivery.next_attempt_at !== null) {
    clock.advanceTo(Date.parse(delivery.next_attempt_at));
    attemptTimes.push(clock.now());
    delivery = afterAttempt(delivery, outcomes[Math.min(attemptTimes.length, outcomes.length) - 1]!, clock.now());
  }
  return { delivery, attemptTimes };
}

describe('the retry schedule', () => {
  test('at once, then after 5 s, 5 min, 30 min, 2 h, 5 h, 10 h and 10 h', () => {
    expect(ATTEMPT_DELAYS_MS).toEqual([0, 5 * S, 5 * M, 30 * M, 2 * H, 5 * H, 10 * H, 10 * H]);
    expect(nextAttemptAt(0, START)).toBe(START);
    expect(nextAttemptAt(1, START)).toBe(START + 5 * S);
    expect(nextAttemptAt(2, START)).toBe(START + 5 * M);
    expect(nextAttemptAt(7, START)).toBe(START + 10 * H);
    expect(nextAttemptAt(8, START)).toBeNull();
    expect(nextAttemptAt(50, START)).toBeNull();
  });

  test('a delivery that never succeeds: eight attempts on the schedule, failed between them, then exhausted', () => {
    const clock = fakeClock();
    let delivery = newDelivery(clock.now());
    expect(delivery).toEqual({
      status: 'pending',
      attempts: 0,
      last_status_code: null,
      last_attempt_at: null,
      next_attempt_at: iso(START),
    });
    const seen: DeliveryProgress[] = [];
    while (delivery.next_attempt_at !== null) {
      clock.advanceTo(Date.parse(delivery.next_attempt_at));
      // The attempt itself takes a moment: the next delay counts from its end.
      clock.advance(250);
      delivery = afterAttempt(delivery, answered(503, 250), clock.now());
      seen.push(delivery);
    }
    expect(seen.map((d) => d.status)).toEqual(['failed', 'failed', 'failed', 'failed', 'failed', 'failed', 'failed', 'exhausted']);
    expect(seen.map((d) => d.attempts)).toEqual([1, 2, 3, 4, 5, 6, 7, 8]);
    const gaps = seen.slice(1).map((d, i) => Date.parse(d.last_attempt_at!) - Date.parse(seen[i]!.last_attempt_at!));
    expect(gaps).toEqual([5 * S, 5 * M, 30 * M, 2 * H, 5 * H, 10 * H, 10 * H].map((delay) => delay + 250));
    expect(delivery).toEqual({
      status: 'exhausted',
      attempts: 8,
      last_status_code: 503,
      last_attempt_at: iso(clock.now()),
      next_attempt_at: null,
    });
  });

  test('the attempts fall at the cumulative offsets: the last one 27 h 35 min 5 s after the event', () => {
    const clock = fakeClock();
    const { attemptTimes } = run(clock, [noAnswer]);
    expect(attemptTimes.map((t) => t - START)).toEqual([
      0,
      5 * S,
      5 * M + 5 * S,
      35 * M + 5 * S,
      2 * H + 35 * M + 5 * S,
      7 * H + 35 * M + 5 * S,
      17 * H + 35 * M + 5 * S,
      27 * H + 35 * M + 5 * S,
    ]);
  });

  test('a success ends it: the third attempt succeeds, nothing more is scheduled', () => {
    const clock = fakeClock();
    const { delivery, attemptTimes } = run(clock, [answered(500), noAnswer, answered(204)]);
    expect(attemptTimes).toHaveLength(3);
    expect(delivery).toEqual({
      status: 'succeeded',
      attempts: 3,
      last_status_code: 204,
      last_attempt_at: iso(START + 5 * M + 5 * S),
      next_attempt_at: null,
    });
  });

  test('a failed attempt without an answer records no status code', () => {
    const failed = afterAttempt({ attempts: 0 }, noAnswer, START);
    expect(failed).toMatchObject({ status: 'failed', last_status_code: null, next_attempt_at: iso(START + 5 * S) });
  });

  test('410 ends the delivery at once (exhausted), whatever attempts were left', () => {
    const clock = fakeClock();
    const { delivery, attemptTimes } = run(clock, [answered(500), answered(410)]);
    expect(attemptTimes).toHaveLength(2);
    expect(delivery).toMatchObject({ status: 'exhausted', attempts: 2, last_status_code: 410, next_attempt_at: null });
  });
});

describe('what an attempt means', () => {
  test('success is a 2xx within 15 s', () => {
    for (const status of [200, 201, 202, 204, 299]) expect(attemptResult(answered(status))).toBe('success');
    expect(attemptResult(answered(200, ATTEMPT_TIMEOUT_MS))).toBe('success');
    expect(attemptResult(answered(200, ATTEMPT_TIMEOUT_MS + 1))).toBe('failure');
    expect(ATTEMPT_TIMEOUT_MS).toBe(15 * S);
  });

  test('any other answer, redirects included (not followed), or none, is a failure; 410 is gone', () => {
    for (const status of [100, 199, 300, 301, 302, 307, 308, 400, 401, 404, 409, 429, 500, 502, 503]) {
      expect([status, attemptResult(answered(status))]).toEqual([status, 'failure']);
    }
    expect(attemptResult(noAnswer)).toBe('failure');
    expect(attemptResult(answered(410))).toBe('gone');
    expect(attemptResult(answered(410, ATTEMPT_TIMEOUT_MS + 1))).toBe('gone');
  });
});

describe('a retry by hand', () => {
  test('an exhausted delivery gets one more attempt now; if it fails it stays exhausted, no new schedule', () => {
    const clock = fakeClock();
    const { delivery: exhausted } = run(clock, [answered(500)]);
    clock.advance(3 * D);
    const retried = retriedByHand(exhausted, clock.now());
    expect(retried).toEqual({ ...exhausted, status: 'pending', next_attempt_at: iso(clock.now()) });
    expect(afterAttempt(retried, answered(500), clock.now())).toMatchObject({ status: 'exhausted', attempts: 9, next_attempt_at: null });
    expect(afterAttempt(retried, answered(200), clock.now())).toMatchObject({ status: 'succeeded', attempts: 9, last_status_code: 200 });
  });

  test('a failed delivery retried by hand continues the schedule from its attempt count', () => {
    const clock = fakeClock();
    const failed = afterAttempt(afterAttempt(newDelivery(START), noAnswer, START), noAnswer, START + 5 * S);
    clock.advance(M);
    const retried = retriedByHand(failed, clock.now());
    expect(retried).toMatchObject({ status: 'pending', attempts: 2, next_attempt_at: iso(clock.now()) });
    expect(afterAttempt(retried, noAnswer, clock.now())).toMatchObject({
      status: 'failed',
      attempts: 3,
      next_attempt_at: iso(clock.now() + 30 * M),
    });
  });

  test('a succeeded delivery can be sent again', () => {
    const succeeded = afterAttempt(newDelivery(START), answered(200), START);
    expect(retriedByHand(succeeded, START + H)).toMatchObject({ status: 'pending', attempts: 1, next_attempt_at: iso(START + H) });
  });
});

describe('disabling an endpoint', () => {
  test('410 disables it at once', () => {
    expect(endpointAfterAttempt({ failing_since: null }, 'gone', START)).toEqual({ failing_since: iso(START), disable: 'gone' });
    expect(endpointAfterAttempt({ failing_since: iso(START - H) }, 'gone', START)).toEqual({
      failing_since: iso(START - H),
      disable: 'gone',
    });
  });

  test('every attempt failing for 5 days disables it, at the first failure 5 days after the streak began', () => {
    const clock = fakeClock();
    let health: EndpointHealth = { failing_since: null };
    const verdicts: { at: number; disable: string | null }[] = [];
    // An attempt every 7 hours (retries of many deliveries), all failing.
    for (let i = 0; i < 30; i++) {
      const verdict = endpointAfterAttempt(health, 'failure', clock.now());
      health = verdict;
      verdicts.push({ at: clock.now() - START, disable: verdict.disable });
      if (verdict.disable !== null) break;
      clock.advance(7 * H);
    }
    expect(health.failing_since).toBe(iso(START));
    const disabledAt = verdicts.at(-1)!;
    expect(disabledAt).toEqual({ at: 18 * 7 * H, disable: 'failing_for_5_days' });
    expect(verdicts.slice(0, -1).every((v) => v.disable === null && v.at < 5 * D)).toBe(true);
  });

  test('exactly 5 days: disabled; a moment before: not yet', () => {
    const health = { failing_since: iso(START) };
    expect(endpointAfterAttempt(health, 'failure', START + 5 * D - 1).disable).toBeNull();
    expect(endpointAfterAttempt(health, 'failure', START + 5 * D).disable).toBe('failing_for_5_days');
  });

  test('one success resets the streak: the 5 days count again from the next failure', () => {
    const clock = fakeClock();
    let health: EndpointHealth = endpointAfterAttempt({ failing_since: null }, 'failure', clock.now());
    clock.advance(4 * D);
    health = endpointAfterAttempt(health, 'success', clock.now());
    expect(health).toEqual({ failing_since: null, disable: null });
    clock.advance(H);
    const restarted = clock.now();
    health = endpointAfterAttempt(health, 'failure', clock.now());
    clock.advance(2 * D);
    expect(endpointAfterAttempt(health, 'failure', clock.now())).toEqual({ failing_since: iso(restarted), disable: null });
    clock.advanceTo(restarted + 5 * D);
    expect(endpointAfterAttempt(health, 'failure', clock.now()).disable).toBe('failing_for_5_days');
  });

  test('a single delivery failing its whole schedule (27.5 h) does not disable the endpoint', () => {
    const clock = fakeClock();
    let health: EndpointHealth = { failing_since: null };
    let delivery = newDelivery(clock.now());
    while (delivery.next_attempt_at !== null) {
      clock.advanceTo(Date.parse(delivery.next_attempt_at));
      delivery = afterAttempt(delivery, noAnswer, clock.now());
      const verdict = endpointAfterAttempt(health, attemptResult(noAnswer), clock.now());
      expect(verdict.disable).toBeNull();
      health = verdict;
    }
    expect(delivery.status).toBe('exhausted');
    expect(health.failing_since).toBe(iso(START));
  });
});
