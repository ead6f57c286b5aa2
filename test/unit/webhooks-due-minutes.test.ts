/**
 * The due sweep's minutes (`shared/webhooks/due-minutes.ts`): which minutes a run reads from the
 * watermark, how far the watermark moves after it, and the chunks a minute's items are handled in.
 */
import { describe, expect, test } from '@jest/globals';
import {
  chunked,
  DUE_KEEP_MINUTES,
  DUE_LOOKBACK_MINUTES,
  MAX_BACKLOG_MINUTES_PER_RUN,
  MINUTE_MS,
  nextWatermark,
  planSweep,
} from '../../shared/webhooks/due-minutes.js';

const T0 = Date.parse('2026-11-28T12:00:00.000Z');
const minute = (n: number) => T0 + n * MINUTE_MS;
/** Minutes `from`..`to` (inclusive), as offsets from T0. */
const range = (from: number, to: number) => Array.from({ length: to - from + 1 }, (_, i) => minute(from + i));

describe('planSweep', () => {
  test('before the first sweep: the lookback alone, the current minute included', () => {
    const plan = planSweep(undefined, minute(10) + 30_000);
    expect(plan.minutes).toEqual(range(6, 10));
    expect(plan.lookbackFrom).toBe(minute(6));
    expect(DUE_LOOKBACK_MINUTES).toBe(5);
  });

  test('a watermark within the lookback reads the lookback (an item written late into a past minute is found)', () => {
    expect(planSweep(minute(9), minute(10)).minutes).toEqual(range(6, 10));
  });

  test('a watermark behind it: the backlog from the watermark, then the lookback', () => {
    expect(planSweep(minute(-20), minute(10) + 59_999).minutes).toEqual(range(-20, 10));
  });

  test(`at most ${MAX_BACKLOG_MINUTES_PER_RUN} minutes of backlog per run, oldest first; the lookback always`, () => {
    const plan = planSweep(minute(-1_000), minute(10));
    expect(plan.minutes).toEqual([...range(-1_000, -1_000 + MAX_BACKLOG_MINUTES_PER_RUN - 1), ...range(6, 10)]);
  });

  test('never further back than the items are kept (2 days)', () => {
    const plan = planSweep(minute(-10 * DUE_KEEP_MINUTES), minute(0));
    expect(plan.minutes[0]).toBe(minute(-DUE_KEEP_MINUTES));
  });
});

describe('nextWatermark', () => {
  test('past every minute swept whole, but never past the lookback', () => {
    const plan = planSweep(minute(-3), minute(10));
    expect(nextWatermark(plan, new Set(plan.minutes))).toBe(minute(6));
  });

  test('stops at the first minute not swept whole: a failed run keeps it and every later one', () => {
    const plan = planSweep(minute(-3), minute(10));
    const done = new Set(plan.minutes.filter((m) => m !== minute(-1)));
    expect(nextWatermark(plan, done)).toBe(minute(-1));
  });

  test('nothing swept: the watermark stays where the plan began', () => {
    const plan = planSweep(minute(-3), minute(10));
    expect(nextWatermark(plan, new Set())).toBe(minute(-3));
  });

  test('a backlog cut short moves the watermark to the first minute not read, whatever the lookback did', () => {
    const plan = planSweep(minute(-1_000), minute(10));
    expect(nextWatermark(plan, new Set(plan.minutes))).toBe(minute(-1_000 + MAX_BACKLOG_MINUTES_PER_RUN));
  });

  test('runs that keep failing, then one that succeeds: every minute since the first failure is read', () => {
    // The watermark after the last good run, then 10 runs that failed before sweeping anything.
    let watermark = nextWatermark(planSweep(undefined, minute(0)), new Set(range(-4, 0)));
    for (let run = 1; run <= 10; run++) watermark = nextWatermark(planSweep(watermark, minute(run)), new Set());
    expect(watermark).toBe(minute(-4));
    expect(planSweep(watermark, minute(11)).minutes).toEqual(range(-4, 11));
  });
});

describe('chunked', () => {
  test('consecutive chunks of at most the size, in order', () => {
    expect(chunked([1, 2, 3, 4, 5], 2)).toEqual([[1, 2], [3, 4], [5]]);
    expect(chunked([], 25)).toEqual([]);
    expect(
      chunked(
        Array.from({ length: 100 }, (_, i) => i),
        25,
      ).map((c) => c.length),
    ).toEqual([25, 25, 25, 25]);
  });

  test('a size below one is refused', () => {
    expect(() => chunked([1], 0)).toThrow();
  });
});
