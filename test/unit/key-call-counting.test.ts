import { describe, expect, test } from '@jest/globals';
import { newKeyRecord } from '../../shared/keys/api-keys.js';
import { Overloaded, RateLimited, TokenGone } from '../../shared/platform/errors.js';
import type { Effect } from '../../shared/keys/call-records.js';
import { KeyCalls } from '../../shared/keys/key-calls.js';
import type { CallContext } from '../../shared/platform/call.js';
import { counterShards, counterSlot, shareOf } from '../../shared/keys/rate-limit.js';
import { FixedClock, MemoryAuditStore, MemoryCounterStore, MemoryKeyStore } from '../support/fakes.js';

const RAW = `dpk_${'0123456789abcdef'.repeat(2)}01234567`;
const NOW = Date.UTC(2026, 2, 4, 5, 6, 30);
const subject = { action: 'revoke-session' };

function setup(limits: { rate_limit_per_minute: number; rate_limit_per_day?: number }, partitionWriteUnits = 1000) {
  const clock = new FixedClock(NOW);
  const counters = new MemoryCounterStore();
  const audit = new MemoryAuditStore();
  const background: string[] = [];
  let seed = 1;
  const keyCalls = new KeyCalls({
    keys: new MemoryKeyStore(),
    counters,
    audit,
    clock,
    auditRetentionDays: 90,
    partitionWriteUnits,
    // A fixed sequence instead of Math.random: the shard choices repeat run after run.
    random: () => ((seed = (seed * 16807) % 2147483647) - 1) / 2147483646,
    onBackgroundError: (_e, what) => background.push(what),
  });
  const key = newKeyRecord(RAW, 7, { org_id: 1, tier: 'business' }, { name: 'k', ...limits }, NOW - 1000);
  return { clock, counters, audit, background, keyCalls, key };
}

const call = (n = 1): CallContext => ({ requestId: `req-${n}`, sourceIp: '203.0.113.9', userAgent: 'ua/1' });

/** A write of a shared item: no undo, so it must follow the count. */
function sharedWrite(log: string[], counters: MemoryCounterStore, fail?: Error): Effect<string> {
  return {
    run: async () => {
      log.push(`run after ${counters.calls.length} count(s)`);
      if (fail) throw fail;
      return 'written';
    },
  };
}

describe('a shared item’s write (no undo) is never speculative', () => {
  test('it runs only after the call was counted', async () => {
    const { keyCalls, key, counters } = setup({ rate_limit_per_minute: 5 });
    const log: string[] = [];
    await expect(keyCalls.meter(key, call(), subject, sharedWrite(log, counters))).resolves.toBe('written');
    expect(log).toEqual(['run after 1 count(s)']);
  });

  test('a rate-limited call never touches it (nothing to undo, nobody’s write overwritten)', async () => {
    const { keyCalls, key, counters, audit } = setup({ rate_limit_per_minute: 1 });
    const log: string[] = [];
    await keyCalls.meter(key, call(1), subject, sharedWrite(log, counters));
    await expect(keyCalls.meter(key, call(2), subject, sharedWrite(log, counters))).rejects.toThrow(RateLimited);
    expect(log).toEqual(['run after 1 count(s)']);
    expect(audit.puts.filter((r) => r.request_id === 'req-2').map((r) => r.status)).toEqual([200, 429]);
  });

  test('its own refusal is audited with its status; the call stays counted', async () => {
    const { keyCalls, key, counters, audit } = setup({ rate_limit_per_minute: 5 });
    await expect(keyCalls.meter(key, call(), subject, sharedWrite([], counters, new TokenGone()))).rejects.toThrow(TokenGone);
    expect([...audit.records.values()].map((r) => r.status)).toEqual([410]);
    expect(counters.calls).toHaveLength(1);
  });

  test('once it took effect, a failed audit write does not fail the call: the record is written again', async () => {
    const { keyCalls, key, counters, audit } = setup({ rate_limit_per_minute: 5 });
    audit.failNext = new Error('audit down');
    await expect(keyCalls.meter(key, call(), subject, sharedWrite([], counters))).resolves.toBe('written');
    expect([...audit.records.values()].map((r) => r.status)).toEqual([200]);
  });
});

describe('counter shards', () => {
  test('a key needs as many shards as its per-minute peak takes of half a partition', () => {
    const key = (perMinute: number, perDay = 100_000_000) => ({ id: 1, rate_limit_per_minute: perMinute, rate_limit_per_day: perDay });
    expect(counterShards(key(60), 1000)).toBe(1);
    expect(counterShards(key(30_000), 1000)).toBe(1); // 500/s: one partition at half load
    expect(counterShards(key(30_001), 1000)).toBe(2);
    expect(counterShards(key(100_000), 1000)).toBe(4); // the decided maximum, 1,667/s
    expect(counterShards(key(100_000), 50)).toBe(64); // 67 needed at a partition scaled down 20×: capped
    expect(counterShards(key(100_000, 3), 1000)).toBe(3); // never more shards than either limit
  });

  test('shares differ by at most one and add up to the limit exactly', () => {
    for (const [limit, shards] of [
      [100_000, 4],
      [10, 3],
      [7, 7],
      [100_000_000, 64],
    ] as const) {
      const shares = Array.from({ length: shards }, (_, i) => shareOf(limit, i, shards));
      expect(shares.reduce((a, b) => a + b, 0)).toBe(limit);
      expect(Math.max(...shares) - Math.min(...shares)).toBeLessThanOrEqual(1);
    }
  });

  test('one item per key, day and shard, holding the day and the current minute; earlier minutes removed', () => {
    const slot = counterSlot({ id: 42, rate_limit_per_minute: 10, rate_limit_per_day: 100 }, NOW, 1, 3);
    expect(slot).toMatchObject({
      counterKey: `rate#42#${Date.UTC(2026, 2, 4)}#1`,
      minuteField: `m${5 * 60 + 6}`,
      minuteLimit: 3,
      dayLimit: 33,
    });
    expect(slot.staleMinuteFields).toEqual(Array.from({ length: 10 }, (_, i) => `m${5 * 60 + 5 - i}`));
    expect(
      counterSlot({ id: 42, rate_limit_per_minute: 10, rate_limit_per_day: 100 }, Date.UTC(2026, 2, 4), 0, 1).staleMinuteFields,
    ).toEqual([]);
  });

  test('a sharded key admits exactly its limit under 300 concurrent calls, never more', async () => {
    // 1,200/min at 10 writes per partition-second: 1,200/60 = 20/s needs 4 shards of 5/s.
    const { keyCalls, key, counters } = setup({ rate_limit_per_minute: 1200, rate_limit_per_day: 250 }, 10);
    expect(counterShards(key, 10)).toBe(4);
    const results = await Promise.allSettled(
      Array.from({ length: 300 }, (_, i) => keyCalls.meter(key, call(i), subject, { run: async () => i })),
    );
    const admitted = results.filter((r) => r.status === 'fulfilled').length;
    const dayCounts = [0, 1, 2, 3].map((s) => counters.counts.get(`${counterSlot(key, NOW, s, 4).counterKey} day`) ?? 0);
    expect(dayCounts.reduce((a, b) => a + b, 0)).toBe(admitted);
    // Never over; a refusal needs two full shards, so at most two shares' worth can be left unused.
    expect(admitted).toBeLessThanOrEqual(250);
    expect(admitted).toBeGreaterThanOrEqual(250 - 2 * Math.ceil(250 / 4));
    for (const r of results) if (r.status === 'rejected') expect(r.reason).toBeInstanceOf(RateLimited);
  });

  test('once every shard is known full, calls are refused from memory with no write at all', async () => {
    const { keyCalls, key, counters, audit } = setup({ rate_limit_per_minute: 1200, rate_limit_per_day: 8 }, 10);
    for (let i = 0; i < 40; i++) await keyCalls.meter(key, call(i), subject, { run: async () => i }).catch(() => undefined);
    const writes = counters.calls.length;
    const audits = audit.puts.length;
    const error = await keyCalls.meter(key, call(99), subject, { run: async () => 0 }).catch((e: unknown) => e);
    expect(error).toMatchObject({ name: 'RateLimited', window: 'day' });
    expect([counters.calls.length, audit.puts.length]).toEqual([writes, audits]);
  });

  test('a call its shards’ day shares refuse names the day and the day’s reset, though other shards are not yet known full', async () => {
    const { keyCalls, key, counters } = setup({ rate_limit_per_minute: 1200, rate_limit_per_day: 1000 }, 10);
    // Every shard's day share used up by other containers: this container knows none of them full.
    for (let s = 0; s < 4; s++) {
      const slot = counterSlot(key, NOW, s, 4);
      counters.counts.set(`${slot.counterKey} day`, slot.dayLimit);
    }
    const c = call(1);
    const error = await keyCalls.meter(key, c, subject, { run: async () => 0 }).catch((e: unknown) => e);
    const toMidnight = (Date.UTC(2026, 2, 5) - NOW) / 1000;
    expect(error).toMatchObject({ name: 'RateLimited', window: 'day', retryAfterSeconds: toMidnight });
    expect((error as Error).message).toContain('per day');
    // The RateLimit header reads the same: the day, exhausted, resetting at midnight.
    expect(c.rateLimit?.windows.find((w) => w.name === 'day')).toMatchObject({ remaining: 0, resetSeconds: toMidnight });
  });

  test('a full shard makes the call try one other shard, so a call is refused only when two are full', async () => {
    const { keyCalls, key, counters, clock } = setup({ rate_limit_per_minute: 1200, rate_limit_per_day: 1_000_000 }, 10);
    // Fill shard 0's minute share behind this container's back (another container did).
    const slot = counterSlot(key, NOW, 0, 4);
    counters.counts.set(`${slot.counterKey} ${slot.minuteField}`, slot.minuteLimit);
    for (let i = 0; i < 20; i++) await expect(keyCalls.meter(key, call(i), subject, { run: async () => i })).resolves.toBe(i);
    expect(counters.calls.length).toBeLessThanOrEqual(21);
    // The next minute, shard 0 is open again.
    clock.ms = NOW + 60_000;
    await keyCalls.meter(key, call(50), subject, { run: async () => 0 });
  });
});

describe('a throttled counter shard', () => {
  test('a sharded key counts the call in another shard instead of failing it', async () => {
    const { keyCalls, key, counters } = setup({ rate_limit_per_minute: 1200, rate_limit_per_day: 1_000_000 }, 10);
    counters.failNext.count = new Overloaded();
    await expect(keyCalls.meter(key, call(1), subject, { run: async () => 'ok' })).resolves.toBe('ok');
    expect(counters.calls).toHaveLength(2);
    expect(new Set(counters.calls).size).toBe(2);
  });

  test('a key with one counter item fails the call (503): there is nowhere else to count it', async () => {
    const { keyCalls, key, counters } = setup({ rate_limit_per_minute: 60 });
    counters.failNext.count = new Overloaded();
    await expect(keyCalls.meter(key, call(1), subject, { run: async () => 'ok' })).rejects.toThrow(Overloaded);
  });
});
