/**
 * Write-sharded rate limits on the embedded DynamoDB's real conditional writes: a key whose limits
 * need several counter items (here by shrinking the partition budget, as the benchmark's scaled
 * simulation does) never admits a call past its limit under 50-way concurrency, counts every
 * admitted call in exactly one shard, and refuses only when its shards are full; also when its
 * limits change mid-window and the shard count with them (CounterLayouts in shared/keys/rate-limit.ts).
 */
import { afterAll, beforeAll, describe, expect, test } from '@jest/globals';
import { GetCommand, ScanCommand } from '@aws-sdk/lib-dynamodb';
import { newKeyRecord, generateRawKey } from '../../shared/keys/api-keys.js';
import { RateLimited } from '../../shared/platform/errors.js';
import { KeyCalls } from '../../shared/keys/key-calls.js';
import type { ApiKeyRecord } from '../../shared/keys/model.js';
import type { CallContext } from '../../shared/platform/call.js';
import type { KeyChanges } from '../../shared/keys/ports.js';
import { counterShards, counterSlot } from '../../shared/keys/rate-limit.js';
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

/** A key stored in the keys table (a call that meets a limit change reads it again). */
async function storedKey(perMinute: number, perDay: number): Promise<ApiKeyRecord> {
  const k = key(perMinute, perDay);
  await stack.services.stores.keys.create(k);
  return k;
}

/** Change the key's limits as update-key does; the key as read afterwards. */
async function change(k: ApiKeyRecord, changes: KeyChanges): Promise<ApiKeyRecord> {
  await stack.services.stores.keys.update(k, changes, new Date(stack.clock.now()).toISOString());
  return (await stack.services.stores.keys.getByHash(k.key_hash))!;
}

/** Every call of the key counted today, over all its counter items (closed layouts included). */
async function countedToday(k: ApiKeyRecord): Promise<number> {
  const { Items } = await stack.services.client.send(
    new ScanCommand({
      TableName: stack.tableNames.counters,
      FilterExpression: 'begins_with(pk, :p)',
      ExpressionAttributeValues: { ':p': `rate#${k.id}#${Math.floor(stack.clock.now() / 86_400_000) * 86_400_000}#` },
    }),
  );
  return (Items ?? []).reduce((n, item) => n + ((item.day as number | undefined) ?? 0), 0);
}

/**
 * 50 concurrent calls spread over `containers` (each its own memory), every other one holding
 * `stale`, the key as a call read it before the change (it counts after it).
 */
async function mixedBurst(containers: KeyCalls[], fresh: ApiKeyRecord, stale: ApiKeyRecord, n = 50): Promise<number> {
  const results = await Promise.allSettled(
    Array.from({ length: n }, (_, i) =>
      containers[i % containers.length]!.meter(
        i % 2 === 0 ? stale : fresh,
        call(i),
        { action: 'create-session' },
        { run: async () => i, undo: async () => undefined },
      ),
    ),
  );
  for (const r of results) if (r.status === 'rejected') expect(r.reason).toBeInstanceOf(RateLimited);
  return results.filter((r) => r.status === 'fulfilled').length;
}

describe('a limit change mid-window never lets a key past its limits', () => {
  test.each([
    ['1 → 4 shards', 6, 24],
    ['4 → 1 shard', 24, 6],
    ['4 → 2 shards', 24, 12],
  ])('the day window, %s, over three containers, half the calls holding the key as it was', async (_name, before, after) => {
    startOfNextMinute(stack);
    const k = await storedKey(before, 20);
    const containers = [keyCalls(), keyCalls(), keyCalls()];
    expect(counterShards(k, PARTITION_WRITE_UNITS)).not.toBe(counterShards({ ...k, rate_limit_per_minute: after }, PARTITION_WRITE_UNITS));
    // A day used up over three minutes (the minute limit is the smaller one).
    let admitted = 0;
    for (let minute = 0; minute < 4; minute++) {
      admitted += (await Promise.all(containers.map((c) => burst(c, k, 10)))).reduce((a, b) => a + b, 0);
      stack.clock.advance(60_000);
    }
    expect(admitted).toBeLessThanOrEqual(20);
    const changed = await change(k, { rate_limit_per_minute: after });
    admitted += await mixedBurst(containers, changed, k);
    expect(admitted).toBeLessThanOrEqual(20);
    expect(await countedToday(k)).toBe(admitted);
  });

  test('the minute window: 12 of 24 used over 4 shards, then 18 a minute over 3: 6 more at most', async () => {
    startOfNextMinute(stack);
    const k = await storedKey(24, 1_000_000);
    const containers = [keyCalls(), keyCalls()];
    const first = (await Promise.all(containers.map((c) => burst(c, k, 6)))).reduce((a, b) => a + b, 0);
    expect(first).toBe(12);
    const changed = await change(k, { rate_limit_per_minute: 18 });
    expect(counterShards(changed, PARTITION_WRITE_UNITS)).toBe(3);
    const second = (await Promise.all(containers.map((c) => burst(c, changed, 25)))).reduce((a, b) => a + b, 0);
    expect(first + second).toBeLessThanOrEqual(18);
    // Calls that read the key before the change and count after the hand-over count under the new limit.
    const third = await mixedBurst(containers, changed, k);
    expect(first + second + third).toBeLessThanOrEqual(18);
    expect(await countedToday(k)).toBe(first + second + third);
    // The next minute has the whole new limit (what was carried belongs to the minute before).
    stack.clock.advance(60_000);
    const next = await burst(containers[0]!, changed);
    expect(next).toBeLessThanOrEqual(18);
    expect(next).toBeGreaterThanOrEqual(18 - 2 * 6);
  });

  test('several changes in one day, each followed by a burst: never over the day limit', async () => {
    startOfNextMinute(stack);
    let current = await storedKey(6, 20);
    const containers = [keyCalls(), keyCalls(), keyCalls()];
    let admitted = await burst(containers[0]!, current, 10);
    for (const perMinute of [24, 12, 60, 6]) {
      stack.clock.advance(60_000);
      const stale = current;
      current = await change(current, { rate_limit_per_minute: perMinute });
      admitted += await mixedBurst(containers, current, stale);
      expect(admitted).toBeLessThanOrEqual(20);
    }
    expect(await countedToday(current)).toBe(admitted);
    // Raising the day limit opens exactly the difference (in one shard: 6 a minute).
    current = await change(current, { rate_limit_per_day: admitted + 3 });
    stack.clock.advance(60_000);
    expect(await burst(containers[1]!, current)).toBe(3);
  });
});
