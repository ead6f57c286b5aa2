import { describe, expect, test } from '@jest/globals';
import { rateState, rateWindows, secondsToReset } from '../../shared/domain/rate-limit.js';
import { rateLimitHeaders } from '../../shared/http/envelope.js';

const key = { id: 42, rate_limit_per_minute: 60, rate_limit_per_day: 10_000 };
// 2026-03-04T05:06:07.890Z
const NOW = Date.UTC(2026, 2, 4, 5, 6, 7, 890);
const MINUTE_START = Date.UTC(2026, 2, 4, 5, 6);
const DAY_START = Date.UTC(2026, 2, 4);

describe('rateWindows', () => {
  test('a minute window and a day window aligned to UTC, with the key’s limits', () => {
    const [minute, day] = rateWindows(key, NOW);
    expect(minute).toEqual({
      name: 'minute',
      limit: 60,
      startMs: MINUTE_START,
      endMs: MINUTE_START + 60_000,
      counterKey: `rate#42#minute#${MINUTE_START}`,
      ttl: (MINUTE_START + 60_000) / 1000 + 3600,
    });
    expect(day).toEqual({
      name: 'day',
      limit: 10_000,
      startMs: DAY_START,
      endMs: DAY_START + 86_400_000,
      counterKey: `rate#42#day#${DAY_START}`,
      ttl: (DAY_START + 86_400_000) / 1000 + 3600,
    });
  });

  test('a call exactly on a boundary opens the new window; one millisecond before is the old one', () => {
    const boundary = Date.UTC(2026, 2, 5);
    const [minuteAt, dayAt] = rateWindows(key, boundary);
    expect([minuteAt.startMs, dayAt.startMs]).toEqual([boundary, boundary]);
    const [minuteBefore, dayBefore] = rateWindows(key, boundary - 1);
    expect(minuteBefore.endMs).toBe(boundary);
    expect(dayBefore.endMs).toBe(boundary);
    expect(minuteBefore.counterKey).not.toBe(minuteAt.counterKey);
    expect(dayBefore.counterKey).not.toBe(dayAt.counterKey);
  });

  test('every call within one UTC minute shares a counter; keys do not share counters', () => {
    const keys = (ms: number) => rateWindows(key, ms).map((w) => w.counterKey);
    expect(keys(MINUTE_START)).toEqual(keys(MINUTE_START + 59_999));
    expect(rateWindows({ ...key, id: 43 }, NOW)[0].counterKey).not.toBe(rateWindows(key, NOW)[0].counterKey);
  });

  test('the counter outlives its window (TTL after the end), so a late undo still finds it', () => {
    for (const w of rateWindows(key, NOW)) expect(w.ttl * 1000).toBeGreaterThan(w.endMs);
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
