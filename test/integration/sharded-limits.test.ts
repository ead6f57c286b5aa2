/**
 * Write-sharded rate limits on the embedded DynamoDB's real conditional writes: a key whose limits
 * need several counter items (here by shrinking the partition budget, as the benchmark's scaled
 * simulation does) never admits a call past its limit under 50-way concurrency, counts every
 * admitted call in exactly one shard, and refuses only when its shards are full.
 */
import { afterAll, beforeAll, describe, expect, test } from '@jest/globals';
import { GetCommand } from '@aws-sdk/lib-dynamodb';
import { newKeyRecord, generateRawKey } from '../../shared/domain/api-keys.js';
import { RateLimited } from '../../shared/domain/errors.js';
import { KeyCalls } from '../../shared/domain/key-calls.js';
import type { ApiKeyRecord, CallContext } from '../../shared/domain/model.js';
import { counterShards, counterSlot } from '../../shared/domain/rate-limit.js';
import { startOfNextMinute } from '../support/keys.js';
import { startStack, type Stack } from '../support/local-stack.js';

let stack: Stack;
beforeAll(async () => {
  stack = await startStack();
});
afterAll(() => stack.stop());

/** Writes per partition-second small enough that a limit of a few dozen calls a minute needs 4 shards. */
const PARTITION_WRITE_UNITS = 0.2;

function keyCalls(): KeyCalls {
  const { stores } = stack.services;
  return new KeyCalls({
    keys: stores.keys,
    counters: stores.counters,
    audit: stores.audit,
    clock: stack.clock,
    auditRetentionDays: 1,
    partitionWriteUnits: PARTITION_WRITE_UNITS,
  });
}

let nextId = 91_000;
function key(perMinute: number, perDay: number): ApiKeyRecord {
  return newKeyRecord(
    generateRawKey(),
    nextId++,
    { org_id: 1, tier: 'business' },
    { name: 'sharded', rate_limit_per_minute: perMinute, rate_limit_per_day: perDay },
    stack.clock.now(),
  );
}

const call = (i: number): CallContext => ({ requestId: `sharded-${i}-${Math.random()}`, sourceIp: '127.0.0.1', userAgent: 'test' });

/** What the key's shards hold now: day and current-minute counts per shard. */
async function shardCounts(k: ApiKeyRecord): Promise<{ day: number; minute: number }[]> {
  const shards = counterShards(k, PARTITION_WRITE_UNITS);
  return Promise.all(
    Array.from({ length: shards }, async (_, s) => {
      const slot = counterSlot(k, stack.clock.now(), s, shards);
      const { Item } = await stack.services.client.send(
        new GetCommand({ TableName: stack.tableNames.counters, Key: { pk: slot.counterKey }, ConsistentRead: true }),
      );
      return { day: (Item?.day as number) ?? 0, minute: (Item?.[slot.minuteField] as number) ?? 0 };
    }),
  );
}

/** 50 concurrent metered calls of `k` through `calls`; how many were admitted. */
async function burst(calls: KeyCalls, k: ApiKeyRecord, n = 50): Promise<number> {
  const results = await Promise.allSettled(
    Array.from({ length: n }, (_, i) =>
      calls.meter(k, call(i), { action: 'create-session' }, { run: async () => i, undo: async () => undefined }),
    ),
  );
  for (const r of results) if (r.status === 'rejected') expect(r.reason).toBeInstanceOf(RateLimited);
  return results.filter((r) => r.status === 'fulfilled').length;
}

describe('sharded rate limits, exact under concurrency', () => {
  test('a minute limit split over 4 shards: never over, every admitted call counted once', async () => {
    startOfNextMinute(stack);
    const k = key(24, 1_000_000);
    expect(counterShards(k, PARTITION_WRITE_UNITS)).toBe(4);
    const admitted = await burst(keyCalls(), k);
    const shards = await shardCounts(k);
    expect(admitted).toBeLessThanOrEqual(24);
    // A refusal needs two full shards: at most two shares (2 × 6) can be left over.
    expect(admitted).toBeGreaterThanOrEqual(24 - 12);
    expect(shards.reduce((n, s) => n + s.minute, 0)).toBe(admitted);
    expect(shards.reduce((n, s) => n + s.day, 0)).toBe(admitted);
    for (const s of shards) expect(s.minute).toBeLessThanOrEqual(6);
  });

  test('several containers (each its own memory) together stay within the day limit', async () => {
    startOfNextMinute(stack);
    const k = key(60, 30);
    const shards = counterShards(k, PARTITION_WRITE_UNITS);
    expect(shards).toBeGreaterThan(1);
    const admitted = (await Promise.all([keyCalls(), keyCalls(), keyCalls()].map((c) => burst(c, k, 20)))).reduce((a, b) => a + b, 0);
    expect(admitted).toBeLessThanOrEqual(30);
    expect((await shardCounts(k)).reduce((n, s) => n + s.day, 0)).toBe(admitted);
  });

  test('a refused call is counted in neither window (one conditional write for both)', async () => {
    startOfNextMinute(stack);
    const k = key(8, 1_000_000);
    const calls = keyCalls();
    const admitted = await burst(calls, k, 30);
    const shards = await shardCounts(k);
    expect(shards.reduce((n, s) => n + s.day, 0)).toBe(admitted);
    // The next minute the key counts again, in the same day items.
    stack.clock.advance(60_000);
    await expect(
      calls.meter(k, call(99), { action: 'create-session' }, { run: async () => 'ok', undo: async () => undefined }),
    ).resolves.toBe('ok');
    expect((await shardCounts(k)).reduce((n, s) => n + s.day, 0)).toBe(admitted + 1);
  });
});
