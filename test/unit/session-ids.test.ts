import { describe, expect, test } from '@jest/globals';
import { IdPermutation } from '../../shared/platform/id-permutation.js';
import { IdAllocator } from '../../shared/platform/ids.js';
import { MemoryCounterStore } from '../support/fakes.js';

const SECRET = 'k'.repeat(40);

describe('IdPermutation', () => {
  const p = new IdPermutation(() => SECRET);

  test('a bijection: distinct inputs give distinct outputs, and invert undoes apply', () => {
    const inputs = [0, 1, 2, 99, 100, 2 ** 26 - 1, 2 ** 26, 2 ** 40 + 7, 2 ** 52 - 1];
    for (let i = 0; i < 5000; i++) inputs.push(i * 104_729);
    const outputs = inputs.map((n) => p.apply(n));
    expect(new Set(outputs).size).toBe(new Set(inputs).size);
    for (const [i, n] of inputs.entries()) {
      expect(outputs[i]).toBeGreaterThanOrEqual(0);
      expect(outputs[i]).toBeLessThan(2 ** 52);
      expect(p.invert(outputs[i]!)).toBe(n);
    }
  });

  test('consecutive inputs land far apart; another key is another permutation', () => {
    const outs = Array.from({ length: 200 }, (_, i) => p.apply(i));
    const near = outs.slice(1).filter((o, i) => Math.abs(o - outs[i]!) < 2 ** 40);
    expect(near.length).toBeLessThanOrEqual(1);
    expect(new IdPermutation(() => 'z'.repeat(40)).apply(5)).not.toBe(p.apply(5));
  });

  test('a short secret or a value outside the domain is refused', () => {
    expect(() => new IdPermutation(() => 'short').apply(1)).toThrow(/at least 32/);
    expect(() => p.apply(2 ** 52)).toThrow(RangeError);
    expect(() => p.apply(-1)).toThrow(RangeError);
  });
});

describe('IdAllocator (sharded, permuted: session ids)', () => {
  const permutation = new IdPermutation(() => SECRET);
  const allocator = (counters: MemoryCounterStore, random?: () => number) =>
    new IdAllocator(counters, { sequence: 'session_id', shards: 8, blockSize: 10, prefetch: true, permutation, random });

  test('ids are unique across containers sharing the sequence items, and in [1, 2^52]', async () => {
    const counters = new MemoryCounterStore();
    const containers = Array.from({ length: 12 }, () => allocator(counters));
    const ids = (await Promise.all(containers.map((c) => Promise.all(Array.from({ length: 35 }, () => c.nextId()))))).flat();
    expect(new Set(ids).size).toBe(ids.length);
    for (const id of ids) expect(id >= 1 && id <= 2 ** 52).toBe(true);
    // Each id is the image of exactly one counter value.
    expect(new Set(ids.map((id) => permutation.invert(id - 1))).size).toBe(ids.length);
  });

  test('cold containers spread their block reservations over the shards (no hot item)', async () => {
    const counters = new MemoryCounterStore();
    await Promise.all(Array.from({ length: 200 }, () => allocator(counters).nextId()));
    const perItem = new Map<string, number>();
    for (const c of counters.calls) perItem.set(c, (perItem.get(c) ?? 0) + 1);
    expect(perItem.size).toBe(8);
    expect(Math.max(...perItem.values())).toBeLessThan((200 / 8) * 2);
  });

  test('the next block is reserved ahead: a warm container never waits for a reservation', async () => {
    const counters = new MemoryCounterStore();
    const ids = allocator(counters);
    await ids.nextId(); // cold: reserves
    for (let i = 0; i < 30; i++) {
      const before = counters.calls.length;
      // The reservation a call may start runs in the background; the call itself answers at once.
      const id = await Promise.race([ids.nextId(), new Promise((r) => setImmediate(() => r('waited')))]);
      expect(id).not.toBe('waited');
      expect(counters.calls.length - before).toBeLessThanOrEqual(1);
      await new Promise((r) => setImmediate(r));
    }
  });

  test('a released id (never stored) is handed out again; a failed reservation fails its caller only', async () => {
    const counters = new MemoryCounterStore();
    const ids = allocator(counters);
    const first = await ids.nextId();
    ids.release(first);
    expect(await ids.nextId()).toBe(first);
    const fresh = allocator(counters);
    counters.failNext.reserve = new Error('throttled');
    await expect(fresh.nextId()).rejects.toThrow('throttled');
    await expect(fresh.nextId()).resolves.toBeGreaterThan(0);
  });

  test('a sequence past the 52-bit domain is refused rather than repeating ids', async () => {
    const counters = new MemoryCounterStore();
    counters.counts.set('seq#session_id#0', 2 ** 52 / 80);
    await expect(allocator(counters, () => 0).nextId()).rejects.toThrow(/overflowed/);
  });
});
