/**
 * Per-key rate limits over HTTP: fixed windows aligned to the UTC minute and day, a call refused by
 * one window is not counted in the other, the draft-ietf-httpapi-ratelimit-headers headers, and
 * the concurrency fact of the core issue (50 parallel creates against 10 per minute).
 */
import { afterAll, beforeAll, describe, expect, test } from '@jest/globals';
import { auditOfKey, createTestKey, startOfNextMinute, tokensOfKey, windowCounts, UNLIMITED } from '../support/keys.js';
import { startStack, type Stack } from '../support/local-stack.js';
import { sessionsApi } from '../support/sessions-api.js';

let stack: Stack;
let api: ReturnType<typeof sessionsApi>;
beforeAll(async () => {
  stack = await startStack();
  // A key of org 1 (like the demo key) whose limits the file's calls never meet.
  const partner = await createTestKey(stack, UNLIMITED);
  api = sessionsApi(stack, () => partner.raw);
});
afterAll(() => stack.stop());

const MINUTE = 60_000;
const DAY = 86_400_000;
/** Seconds from the stack's now to the next multiple of `length`, as the service reports them. */
const secondsLeft = (length: number) => {
  const now = stack.clock.now();
  return Math.ceil((Math.ceil((now + 1) / length) * length - now) / 1000);
};
/** Check a reported reset against the seconds left before the call (`before`) and now. */
const expectReset = (reported: number, length: number, before: number) => {
  expect(reported).toBeLessThanOrEqual(before);
  expect(reported).toBeGreaterThanOrEqual(secondsLeft(length));
};
/** The parts of a `RateLimit` header. */
const parseRateLimit = (value: string | null) => {
  const m = /^"(minute|day)";r=(\d+);t=(\d+)$/.exec(value ?? '');
  if (!m) throw new Error(`unexpected RateLimit header ${value}`);
  return { name: m[1], remaining: Number(m[2]), reset: Number(m[3]) };
};

describe('rate limits', () => {
  test('50 parallel creates against a per-minute limit of 10: exactly ten 200s and forty 429s', async () => {
    startOfNextMinute(stack);
    const key = await createTestKey(stack, { rate_limit_per_minute: 10 });
    const results = await Promise.all(
      Array.from({ length: 50 }, (_, i) => api.create({ game_id: 101, external_ref: `burst-${i}` }, key.raw)),
    );
    const statuses = results.map((r) => r.status);
    expect(statuses.filter((s) => s === 200)).toHaveLength(10);
    expect(statuses.filter((s) => s === 429)).toHaveLength(40);

    for (const refused of results.filter((r) => r.status === 429)) {
      expect(refused.body.success).toBe(false);
      expect(refused.body.error).toMatch(/^Rate limit exceeded \(per minute\)/);
      expect(Number(refused.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
      expect(Number(refused.headers.get('retry-after'))).toBeLessThanOrEqual(60);
    }
    // Refused calls left nothing behind: no token, no count in the day window; their audit says 429.
    const tokens = await tokensOfKey(stack, key.record.id);
    expect(tokens.map((t) => t.token).sort()).toEqual(
      results
        .filter((r) => r.status === 200)
        .map((r) => r.body.data.token)
        .sort(),
    );
    expect(await windowCounts(stack, key.record)).toEqual({ minute: 10, day: 10 });
    const audit = await auditOfKey(stack, key.record.id);
    expect(audit.filter((r) => r.status === 200)).toHaveLength(10);
    // Refusals counted against the window are audited; once the container knows the window is
    // exhausted, further calls are refused from memory with no write at all (no audit record).
    const refusedAudited = audit.filter((r) => r.status === 429).length;
    expect(refusedAudited).toBeGreaterThanOrEqual(1);
    expect(refusedAudited).toBeLessThanOrEqual(40);
    expect(audit).toHaveLength(10 + refusedAudited);
  });

  test('a refused call leaves no usable token behind (the burst’s refused tokens are unknown)', async () => {
    startOfNextMinute(stack);
    const key = await createTestKey(stack, { rate_limit_per_minute: 1 });
    expect((await api.create({ game_id: 101 }, key.raw)).status).toBe(200);
    const refused = await api.create({ game_id: 101 }, key.raw);
    expect(refused.status).toBe(429);
    expect(refused.body.data).toBeUndefined();
    expect(await tokensOfKey(stack, key.record.id)).toHaveLength(1);
  });

  test('per-day limit 3, per-minute 100: after 3 calls further calls are 429 and the minute counter does not grow', async () => {
    startOfNextMinute(stack);
    const key = await createTestKey(stack, { rate_limit_per_minute: 100, rate_limit_per_day: 3 });
    for (let i = 0; i < 3; i++) expect((await api.create({ game_id: 101 }, key.raw)).status).toBe(200);
    for (let i = 0; i < 3; i++) {
      const before = secondsLeft(DAY);
      const refused = await api.create({ game_id: 101 }, key.raw);
      expect(refused.status).toBe(429);
      expect(refused.body.error).toMatch(/^Rate limit exceeded \(per day\)/);
      expectReset(Number(refused.headers.get('retry-after')), DAY, before);
      const rateLimit = parseRateLimit(refused.headers.get('ratelimit'));
      expect(rateLimit).toMatchObject({ name: 'day', remaining: 0 });
      expectReset(rateLimit.reset, DAY, before);
    }
    expect(await windowCounts(stack, key.record)).toEqual({ minute: 3, day: 3 });

    // The next minute does not help; the next UTC day does.
    stack.clock.advance(MINUTE);
    expect((await api.create({ game_id: 101 }, key.raw)).status).toBe(429);
    const counts = await windowCounts(stack, key.record);
    expect([counts.minute ?? 0, counts.day]).toEqual([0, 3]);
    const nextDay = Math.ceil(stack.clock.now() / DAY) * DAY;
    stack.clock.advance(nextDay + 1000 - stack.clock.now());
    expect((await api.create({ game_id: 101 }, key.raw)).status).toBe(200);
    expect(await windowCounts(stack, key.record)).toEqual({ minute: 1, day: 1 });
  });

  test('per-minute limit 2: a burst never eats the day’s allowance, and the next minute works again', async () => {
    startOfNextMinute(stack);
    const key = await createTestKey(stack, { rate_limit_per_minute: 2, rate_limit_per_day: 100 });
    expect((await api.create({ game_id: 101 }, key.raw)).status).toBe(200);
    expect((await api.create({ stream_id: 201 }, key.raw)).status).toBe(200);
    for (let i = 0; i < 4; i++) {
      const before = secondsLeft(MINUTE);
      const refused = await api.create({ game_id: 101 }, key.raw);
      expect(refused.status).toBe(429);
      expectReset(Number(refused.headers.get('retry-after')), MINUTE, before);
    }
    expect(await windowCounts(stack, key.record)).toEqual({ minute: 2, day: 2 });

    stack.clock.advance(MINUTE);
    const before = secondsLeft(MINUTE);
    const next = await api.create({ game_id: 101 }, key.raw);
    expect(next.status).toBe(200);
    const rateLimit = parseRateLimit(next.headers.get('ratelimit'));
    expect(rateLimit).toMatchObject({ name: 'minute', remaining: 1 });
    expectReset(rateLimit.reset, MINUTE, before);
    expect(await windowCounts(stack, key.record)).toEqual({ minute: 1, day: 3 });
  });

  test('windows are aligned to the UTC minute, not to the first call', async () => {
    startOfNextMinute(stack, 50_000);
    const key = await createTestKey(stack, { rate_limit_per_minute: 1 });
    expect((await api.create({ game_id: 101 }, key.raw)).status).toBe(200);
    expect((await api.create({ game_id: 101 }, key.raw)).status).toBe(429);
    // Ten seconds later a new UTC minute has begun, although a minute has not passed since the first call.
    startOfNextMinute(stack);
    expect((await api.create({ game_id: 101 }, key.raw)).status).toBe(200);
  });
});

describe('rate-limit headers', () => {
  test('RateLimit-Policy names both windows with quota and length; RateLimit the tighter window', async () => {
    startOfNextMinute(stack);
    const key = await createTestKey(stack, { rate_limit_per_minute: 5, rate_limit_per_day: 1000 });
    const before = secondsLeft(MINUTE);
    const first = await api.create({ game_id: 101 }, key.raw);
    expect(first.headers.get('ratelimit-policy')).toBe('"minute";q=5;w=60, "day";q=1000;w=86400');
    const rateLimit = parseRateLimit(first.headers.get('ratelimit'));
    expect(rateLimit).toMatchObject({ name: 'minute', remaining: 4 });
    expectReset(rateLimit.reset, MINUTE, before);
    const second = await api.create({ game_id: 101 }, key.raw);
    expect(parseRateLimit(second.headers.get('ratelimit')).remaining).toBe(3);
    expect(second.headers.get('retry-after')).toBeNull();
  });

  test('the day window is reported when it is closer to exhaustion', async () => {
    startOfNextMinute(stack);
    const key = await createTestKey(stack, { rate_limit_per_minute: 100, rate_limit_per_day: 10 });
    const before = secondsLeft(DAY);
    const reply = await api.create({ game_id: 101 }, key.raw);
    expect(reply.headers.get('ratelimit-policy')).toBe('"minute";q=100;w=60, "day";q=10;w=86400');
    const rateLimit = parseRateLimit(reply.headers.get('ratelimit'));
    expect(rateLimit).toMatchObject({ name: 'day', remaining: 9 });
    expectReset(rateLimit.reset, DAY, before);
  });

  test('a 429 carries Retry-After equal to the reset of the refusing window', async () => {
    startOfNextMinute(stack);
    const key = await createTestKey(stack, { rate_limit_per_minute: 1 });
    await api.create({ game_id: 101 }, key.raw);
    const refused = await api.create({ game_id: 101 }, key.raw);
    expect(refused.status).toBe(429);
    const rateLimit = parseRateLimit(refused.headers.get('ratelimit'));
    expect(rateLimit).toMatchObject({ name: 'minute', remaining: 0 });
    expect(Number(refused.headers.get('retry-after'))).toBe(rateLimit.reset);
  });

  test('when both windows are exhausted, Retry-After and RateLimit point at the day window', async () => {
    startOfNextMinute(stack);
    const key = await createTestKey(stack, { rate_limit_per_minute: 1, rate_limit_per_day: 1 });
    const first = await api.create({ game_id: 101 }, key.raw);
    expect(first.status).toBe(200);
    expect(parseRateLimit(first.headers.get('ratelimit'))).toMatchObject({ name: 'day', remaining: 0 });
    const before = secondsLeft(DAY);
    const refused = await api.create({ game_id: 101 }, key.raw);
    expect(refused.status).toBe(429);
    expect(refused.body.error).toMatch(/^Rate limit exceeded \(per day\)/);
    expectReset(Number(refused.headers.get('retry-after')), DAY, before);
    const rateLimit = parseRateLimit(refused.headers.get('ratelimit'));
    expect(rateLimit).toMatchObject({ name: 'day', remaining: 0 });
    expectReset(rateLimit.reset, DAY, before);
  });

  test('calls without a key carry no rate-limit headers', async () => {
    const token = await api.mint();
    for (const reply of [await api.validate(token), await api.consume({ token }), await api.create({ game_id: 101 }, null)]) {
      expect(reply.headers.get('ratelimit')).toBeNull();
      expect(reply.headers.get('ratelimit-policy')).toBeNull();
    }
  });
});
