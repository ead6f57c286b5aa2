import { describe, expect, test } from '@jest/globals';
import { counterSlot, estimatedTotal, rateState, rateWindows, secondsToReset } from '../../shared/keys/rate-limit.js';
import { rateLimitHeaders } from '../../shared/platform/http/answers.js';

const key = { id: 42, rate_limit_per_minute: 60, rate_limit_per_day: 10_000 };
// 2026-03-04T05:06:07.890Z
const NOW = Date.UTC(2026, 2, 4, 5, 6, 7, 890);
const MINUTE_START = Date.UTC(2026, 2, 4, 5, 6);
const DAY_START = Date.UTC(2026, 2, 4);

describe('rateWindows', () => {
  test('a minute window and a day window aligned to UTC, with the key’s limits', () => {
    const [minute, day] = rateWindows(key, NOW);
    expect(minute).toEqual({ name: 'minute', limit: 60, startMs: MINUTE_START, endMs: MINUTE_START + 60_000 });
    expect(day).toEqual({ name: 'day', limit: 10_000, startMs: DAY_START, endMs: DAY_START + 86_400_000 });
  });

  test('a call exactly on a boundary opens the new window; one millisecond before is the old one', () => {
    const boundary = Date.UTC(2026, 2, 5);
    const [minuteAt, dayAt] = rateWindows(key, boundary);
    expect([minuteAt.startMs, dayAt.startMs]).toEqual([boundary, boundary]);
    const [minuteBefore, dayBefore] = rateWindows(key, boundary - 1);
    expect(minuteBefore.endMs).toBe(boundary);
    expect(dayBefore.endMs).toBe(boundary);
    const slot = (ms: number) => counterSlot(key, ms, 0, 1);
    expect(slot(boundary - 1).counterKey).not.toBe(slot(boundary).counterKey);
    expect(slot(boundary - 1).minuteField).toBe('m1439');
    expect(slot(boundary).minuteField).toBe('m0');
  });

  test('every call within one UTC minute shares a counter field; keys do not share counters', () => {
    const at = (ms: number) => counterSlot(key, ms, 0, 1);
    expect([at(MINUTE_START).counterKey, at(MINUTE_START).minuteField]).toEqual([
      at(MINUTE_START + 59_999).counterKey,
      at(MINUTE_START + 59_999).minuteField,
    ]);
    expect(at(MINUTE_START + 60_000).minuteField).not.toBe(at(MINUTE_START).minuteField);
    expect(counterSlot({ ...key, id: 43 }, NOW, 0, 1).counterKey).not.toBe(at(NOW).counterKey);
  });

  test('the counter item outlives its day (TTL an hour after the end)', () => {
    expect(counterSlot(key, NOW, 0, 1).ttl * 1000).toBe(DAY_START + 86_400_000 + 3_600_000);
  });
});

describe('estimatedTotal', () => {
  test('exact with one shard; scaled from the shard’s fill otherwise, never above the limit', () => {
    expect(estimatedTotal(7, 10, 10)).toBe(7);
    expect(estimatedTotal(5, 25, 100)).toBe(20);
    expect(estimatedTotal(25, 25, 100)).toBe(100);
    expect(estimatedTotal(26, 25, 100)).toBe(100);
  });
});

describe('secondsToReset', () => {
  const [minute, day] = rateWindows(key, NOW);
  test('rounds up to whole seconds', () => {
    expect(secondsToReset(minute, NOW)).toBe(53);
    expect(secondsToReset(minute, MINUTE_START)).toBe(60);
    expect(secondsToReset(day, NOW)).toBe(86_400 - (5 * 3600 + 6 * 60 + 7));
  });
  test('is at least 1, even at or past the end', () => {
    expect(secondsToReset(minute, minute.endMs - 1)).toBe(1);
    expect(secondsToReset(minute, minute.endMs)).toBe(1);
    expect(secondsToReset(minute, minute.endMs + 5000)).toBe(1);
  });
});

describe('rateState', () => {
  const windows = rateWindows({ ...key, rate_limit_per_minute: 10, rate_limit_per_day: 100 }, NOW);
  test('remaining is the limit minus the count after the call', () => {
    expect(rateState(windows, [3, 40], NOW)).toEqual({
      windows: [
        { name: 'minute', limit: 10, windowSeconds: 60, remaining: 7, resetSeconds: 53 },
        { name: 'day', limit: 100, windowSeconds: 86_400, remaining: 60, resetSeconds: secondsToReset(windows[1], NOW) },
      ],
    });
  });
  test('an exhausted window has 0 remaining; an unknown count counts as none', () => {
    expect(rateState(windows, ['exhausted', undefined], NOW).windows.map((w) => w.remaining)).toEqual([0, 100]);
  });
  test('remaining never goes below zero', () => {
    expect(rateState(windows, [12, 100], NOW).windows.map((w) => w.remaining)).toEqual([0, 0]);
  });
});

describe('rateLimitHeaders', () => {
  const windows = rateWindows({ ...key, rate_limit_per_minute: 10, rate_limit_per_day: 100 }, NOW);
  test('RateLimit-Policy names both windows; RateLimit reports the one closest to exhaustion', () => {
    expect(rateLimitHeaders(rateState(windows, [3, 40], NOW))).toEqual({
      'ratelimit-policy': '"minute";q=10;w=60, "day";q=100;w=86400',
      ratelimit: '"minute";r=7;t=53',
    });
    expect(rateLimitHeaders(rateState(windows, [1, 98], NOW)).ratelimit).toBe(`"day";r=2;t=${secondsToReset(windows[1], NOW)}`);
  });
  test('on a tie, RateLimit reports the window that resets later (it binds longer)', () => {
    const tied = rateWindows({ ...key, rate_limit_per_minute: 10, rate_limit_per_day: 10 }, NOW);
    const day = `"day";r=0;t=${secondsToReset(tied[1], NOW)}`;
    expect(rateLimitHeaders(rateState(tied, ['exhausted', 'exhausted'], NOW)).ratelimit).toBe(day);
    expect(rateLimitHeaders(rateState(tied, [10, 10], NOW)).ratelimit).toBe(day);
    expect(rateLimitHeaders(rateState(tied, [4, 4], NOW)).ratelimit).toBe(`"day";r=6;t=${secondsToReset(tied[1], NOW)}`);
  });

  test('no state, no headers', () => {
    expect(rateLimitHeaders(undefined)).toEqual({});
    expect(rateLimitHeaders({ windows: [] })).toEqual({});
  });
});
