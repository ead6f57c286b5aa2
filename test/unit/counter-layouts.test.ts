import { describe, expect, test } from '@jest/globals';
import { CounterLayouts, StaleKey, type LayoutKey } from '../../shared/keys/rate-limit.js';
import { counterItemKey, counterSlot, MAX_COUNTER_SHARDS } from '../../shared/keys/rate-limit.js';
import { MemoryCounterStore } from '../support/fakes.js';

const DAY = 86_400_000;
/** 2026-03-04T05:06:30Z: minute 306 of its UTC day. */
const NOW = Date.UTC(2026, 2, 4, 5, 6, 30);
const DAY_START = Math.floor(NOW / DAY) * DAY;

const key = (changes: Partial<LayoutKey> = {}): LayoutKey => ({
  id: 7,
  rate_limit_per_minute: 100,
  rate_limit_per_day: 20,
  ...changes,
});
const changedNow = key({ rate_limit_per_minute: 100_000, limits_version: 1, limits_changed_at: new Date(NOW - 1000).toISOString() });

describe('counter layouts (a limit change mid-day)', () => {
  test('a key never changed, or changed more than a minute before the day began, counts in the day’s first layout with no read', () => {
    const layouts = new CounterLayouts(new MemoryCounterStore(), 1000);
    expect(layouts.peek(key(), NOW)).toEqual({ index: 0, version: 0, shards: 1, carried: { day: 0, minutes: {} } });
    const before = key({ limits_version: 3, limits_changed_at: new Date(DAY_START - 61_000).toISOString() });
    expect(layouts.peek(before, NOW)?.index).toBe(0);
    // Changed within the minute before the day: a call that read the key before may count today.
    expect(layouts.peek({ ...before, limits_changed_at: new Date(DAY_START - 30_000).toISOString() }, NOW)).toBeUndefined();
    expect(layouts.peek(changedNow, NOW)).toBeUndefined();
  });

  test('the hand-over seals every possible shard of the first layout and carries the day and the recent minutes', async () => {
    const store = new MemoryCounterStore();
    const old = counterSlot(key(), NOW, 0, 1);
    store.counts.set(`${old.counterKey} day`, 20);
    store.counts.set(`${old.counterKey} m306`, 5);
    store.counts.set(`${old.counterKey} m305`, 9);
    store.counts.set(`${old.counterKey} m300`, 6);
    const layouts = new CounterLayouts(store, 1000);
    const layout = await layouts.current(changedNow, NOW);
    expect(layout).toEqual({ index: 1, version: 1, shards: 4, carried: { day: 20, minutes: { m306: 5, m305: 9 } } });
    expect(store.sealed.size).toBe(MAX_COUNTER_SHARDS);
    expect(store.sealed.has(counterItemKey(7, DAY_START, 0, MAX_COUNTER_SHARDS - 1))).toBe(true);
    // Remembered: the next call of this container reads nothing, and its shares are of what is left.
    expect(layouts.peek(changedNow, NOW)).toBe(layout);
    expect(counterSlot(changedNow, NOW, 0, 4, layout)).toMatchObject({ dayLimit: 0, minuteLimit: 24_999 });
    // A later minute has the whole minute limit again.
    expect(counterSlot(changedNow, NOW + 60_000, 0, 4, layout).minuteLimit).toBe(25_000);
  });

  test('concurrent calls of one container share one hand-over; another container reads the stored layout', async () => {
    const store = new MemoryCounterStore();
    let seals = 0;
    const seal = store.seal.bind(store);
    store.seal = (keys) => ((seals += 1), seal(keys));
    const layouts = new CounterLayouts(store, 1000);
    const all = await Promise.all(Array.from({ length: 10 }, () => layouts.current(changedNow, NOW)));
    expect(new Set(all).size).toBe(1);
    expect(seals).toBe(1);
    expect(await new CounterLayouts(store, 1000).current(changedNow, NOW)).toEqual(all[0]);
    expect(seals).toBe(1);
  });

  test('a layout made for newer limits, or the one a count just found sealed, means the key must be read again', async () => {
    const store = new MemoryCounterStore();
    const newer = { ...changedNow, limits_version: 2 };
    await new CounterLayouts(store, 1000).current(newer, NOW);
    await expect(new CounterLayouts(store, 1000).current(changedNow, NOW)).rejects.toBeInstanceOf(StaleKey);
    await expect(new CounterLayouts(store, 1000).current(newer, NOW, 1)).rejects.toBeInstanceOf(StaleKey);
  });

  test('each change of the day hands over from the layout before it, carrying everything counted so far', async () => {
    const store = new MemoryCounterStore();
    const first = await new CounterLayouts(store, 1000).current(changedNow, NOW);
    for (let shard = 0; shard < first.shards; shard++) store.counts.set(`${counterItemKey(7, DAY_START, 1, shard)} day`, 1);
    const again = { ...changedNow, rate_limit_per_minute: 60, limits_version: 2 };
    const second = await new CounterLayouts(store, 1000).current(again, NOW + 1000);
    expect(second).toMatchObject({ index: 2, version: 2, shards: 1, carried: { day: 4 } });
    // Only the previous layout's own shards are sealed this time.
    expect(store.sealed.has(counterItemKey(7, DAY_START, 1, 3))).toBe(true);
    expect(store.sealed.has(counterItemKey(7, DAY_START, 1, 4))).toBe(false);
  });
});
