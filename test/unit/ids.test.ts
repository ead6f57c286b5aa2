import { describe, expect, test } from '@jest/globals';
import { IdAllocator, type SequenceStore } from '../../shared/platform/ids.js';
import { MemoryCounterStore } from '../support/fakes.js';

const reserves = (counters: MemoryCounterStore) => counters.calls.filter((c) => c.startsWith('reserve'));

describe('IdAllocator (one counter item)', () => {
  test('hands out consecutive ids from 1, reserving one block per blockSize ids', async () => {
    const counters = new MemoryCounterStore();
    const ids = new IdAllocator(counters, { sequence: 'session_id', blockSize: 3 });
    expect(ids.hasSpare).toBe(false);
    const got: number[] = [];
    for (let i = 0; i < 7; i++) got.push(await ids.nextId());
    expect(got).toEqual([1, 2, 3, 4, 5, 6, 7]);
    expect(reserves(counters)).toEqual(['reserve session_id 3', 'reserve session_id 3', 'reserve session_id 3']);
    expect(ids.hasSpare).toBe(true);
  });

  test('concurrent calls share one refill', async () => {
    const counters = new MemoryCounterStore();
    const ids = new IdAllocator(counters, { sequence: 'session_id', blockSize: 100 });
    const got = await Promise.all(Array.from({ length: 20 }, () => ids.nextId()));
    expect([...got].sort((a, b) => a - b)).toEqual(Array.from({ length: 20 }, (_, i) => i + 1));
    expect(reserves(counters)).toHaveLength(1);
  });

  test('concurrent calls beyond one block get unique ids with as many refills as needed', async () => {
    const counters = new MemoryCounterStore();
    const ids = new IdAllocator(counters, { sequence: 'session_id', blockSize: 4 });
    const got = await Promise.all(Array.from({ length: 10 }, () => ids.nextId()));
    expect(new Set(got).size).toBe(10);
    expect(reserves(counters)).toHaveLength(3);
    expect(Math.max(...got)).toBeLessThanOrEqual(12);
  });

  test('two allocators (two containers) never hand out the same id', async () => {
    const counters = new MemoryCounterStore();
    const a = new IdAllocator(counters, { sequence: 'session_id', blockSize: 5 });
    const b = new IdAllocator(counters, { sequence: 'session_id', blockSize: 5 });
    const got = await Promise.all(Array.from({ length: 12 }, (_, i) => (i % 2 ? a : b).nextId()));
    expect(new Set(got).size).toBe(12);
  });

  test('sequences are independent', async () => {
    const counters = new MemoryCounterStore();
    await new IdAllocator(counters, { sequence: 'session_id', blockSize: 10 }).nextId();
    expect(await new IdAllocator(counters, { sequence: 'key_id', blockSize: 1 }).nextId()).toBe(1);
  });

  test('a failed refill fails its callers, and the next call tries again', async () => {
    const counters = new MemoryCounterStore();
    const ids = new IdAllocator(counters, { sequence: 'session_id', blockSize: 10 });
    counters.failNext.reserve = new Error('throttled');
    const first = await Promise.allSettled([ids.nextId(), ids.nextId()]);
    expect(first.map((r) => r.status)).toEqual(['rejected', 'rejected']);
    expect(reserves(counters)).toHaveLength(1);
    expect(await ids.nextId()).toBe(1);
  });

  test('a sequence past 2^53 is refused rather than handing out unsafe ids', async () => {
    const counters: SequenceStore = { reserve: async () => 2 ** 53 + 10 };
    await expect(new IdAllocator(counters, { sequence: 'session_id', blockSize: 10 }).nextId()).rejects.toThrow(/overflowed/);
  });
});
