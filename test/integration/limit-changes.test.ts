/**
 * A key's limits changed mid-window: "never over" holds across the change, in
 * both directions across the sharding threshold (30,000 a minute at DynamoDB's 1,000 writes a
 * second per partition), under 50-way concurrency, with the change made through the admin API
 * (PATCH) between bursts or in the middle of one. Runs on dynalite and on DynamoDB Local.
 */
import { afterAll, beforeAll, describe, expect, test } from '@jest/globals';
import { counterShards } from '../../shared/keys/rate-limit.js';
import type { DataAccess } from '../../shared/platform/route.js';
import { routes } from '../../shared/routes.js';
import { logicalTableName } from '../../infra/local/table-names.js';
import { adminApi, type AdminApi } from '../support/admin-api.js';
import { createTestKey, startOfNextMinute, tokensOfKey, type TestKey } from '../support/keys.js';
import { startStack, type Stack } from '../support/local-stack.js';
import { sessionsApi } from '../support/sessions-api.js';

let stack: Stack;
let api: ReturnType<typeof sessionsApi>;
let admin: AdminApi;
beforeAll(async () => {
  // It records (or injects faults into) every call of the service's client: the workers' are not this request's.
  stack = await startStack({ workers: false });
  api = sessionsApi(stack, () => '');
  admin = adminApi(stack);
});
afterAll(() => stack.stop());

/** `n` parallel creates with the key; how many got a token (every other answer must be a 429). */
async function burst(key: TestKey, n = 50): Promise<number> {
  const results = await Promise.all(Array.from({ length: n }, () => api.create({ game_id: 101 }, key.raw)));
  for (const r of results) expect([200, 429]).toContain(r.status);
  return results.filter((r) => r.status === 200).length;
}

async function patch(key: TestKey, changes: Record<string, number>): Promise<void> {
  const reply = await admin.update({ id: key.record.id, org_id: 1, ...changes });
  expect(reply.status).toBe(200);
}

const shardsOf = (limits: { rate_limit_per_minute: number; rate_limit_per_day: number }) =>
  counterShards({ id: 0, ...limits }, stack.services.env.DYNAMODB_PARTITION_WRITE_UNITS);

describe('a limit change mid-window never lets a key past its limits', () => {
  test('unsharded to sharded (100 → 100,000 a minute) with the day used up: no further token that day', async () => {
    startOfNextMinute(stack);
    const key = await createTestKey(stack, { rate_limit_per_minute: 100, rate_limit_per_day: 20 });
    expect(await burst(key, 30)).toBe(20);
    await patch(key, { rate_limit_per_minute: 100_000 });
    expect(shardsOf({ rate_limit_per_minute: 100_000, rate_limit_per_day: 20 })).toBeGreaterThan(1);
    expect(await burst(key)).toBe(0);
    expect(await tokensOfKey(stack, key.record.id)).toHaveLength(20);
  });

  test('sharded to unsharded (100,000 → 100 a minute) with the day used up: no further token that day', async () => {
    startOfNextMinute(stack);
    const key = await createTestKey(stack, { rate_limit_per_minute: 100_000, rate_limit_per_day: 20 });
    expect(shardsOf(key.record)).toBeGreaterThan(1);
    const first = await burst(key);
    expect(first).toBeLessThanOrEqual(20);
    await patch(key, { rate_limit_per_minute: 100 });
    const second = await burst(key);
    expect(first + second).toBeLessThanOrEqual(20);
    expect(await tokensOfKey(stack, key.record.id)).toHaveLength(first + second);
  });

  test('the minute window too: half a minute used, then 100 → 100,000 → 100 a minute in the same minute', async () => {
    startOfNextMinute(stack);
    const key = await createTestKey(stack, { rate_limit_per_minute: 100, rate_limit_per_day: 1_000_000 });
    expect(await burst(key, 50)).toBe(50);
    await patch(key, { rate_limit_per_minute: 100_000 });
    // Up to 40 more in the sharded layout (plenty left there) ...
    const sharded = await burst(key, 40);
    expect(sharded).toBe(40);
    await patch(key, { rate_limit_per_minute: 100 });
    // ... and back unsharded, 10 left of the minute's 100: never more.
    expect(await burst(key)).toBe(10);
  });

  test('a limit raised across the threshold takes effect, and only up to the new limit', async () => {
    startOfNextMinute(stack);
    const key = await createTestKey(stack, { rate_limit_per_minute: 100, rate_limit_per_day: 20 });
    expect(await burst(key, 30)).toBe(20);
    await patch(key, { rate_limit_per_minute: 100_000, rate_limit_per_day: 40 });
    const more = await burst(key);
    expect(more).toBeLessThanOrEqual(20);
    // A refusal takes two full shards, so at most two shares of what was left may go unused.
    expect(more).toBeGreaterThanOrEqual(20 - 2 * Math.ceil(20 / shardsOf({ rate_limit_per_minute: 100_000, rate_limit_per_day: 40 })));
  });

  test.each([
    ['unsharded to sharded', 100, 100_000],
    ['sharded to unsharded', 100_000, 100],
  ])('%s while 50 creates are in flight: never over the day limit', async (_name, before, after) => {
    startOfNextMinute(stack);
    const key = await createTestKey(stack, { rate_limit_per_minute: before, rate_limit_per_day: 20 });
    const first = await burst(key, 8);
    const [during] = await Promise.all([burst(key), patch(key, { rate_limit_per_minute: after })]);
    const last = await burst(key);
    expect(first + during + last).toBeLessThanOrEqual(20);
    expect(await tokensOfKey(stack, key.record.id)).toHaveLength(first + during + last);
  });
});

describe('the hand-over to a new layout uses only what create-session may do (its IAM policy)', () => {
  test('every DynamoDB action of the calls after a change across the threshold is declared', async () => {
    const declared = routes.find((r) => r.operation === 'create-session')!.data as DataAccess;
    const allowed = new Set(Object.entries(declared).flatMap(([table, actions]) => (actions ?? []).map((a) => `${table}:${a}`)));
    const used = new Set<string>();
    const name = 'declared-actions';
    stack.services.client.middlewareStack.add(
      (next, context) => async (args) => {
        const command = ((context as { commandName?: string }).commandName ?? '').replace(/Command$/, '');
        const action = { Get: 'GetItem', Put: 'PutItem', Update: 'UpdateItem', Delete: 'DeleteItem' }[command] ?? command;
        used.add(`${logicalTableName((args.input as { TableName?: string }).TableName ?? '')}:${action}`);
        return next(args);
      },
      { step: 'initialize', name },
    );
    try {
      startOfNextMinute(stack);
      const key = await createTestKey(stack, { rate_limit_per_minute: 100, rate_limit_per_day: 20 });
      expect(await burst(key, 10)).toBe(10);
      await patch(key, { rate_limit_per_minute: 100_000 });
      used.clear();
      expect(await burst(key, 20)).toBe(10);
    } finally {
      stack.services.client.middlewareStack.remove(name);
    }
    // The layout's conditional put is among them (the action the declaration once lacked).
    expect(used).toContain('counters:PutItem');
    for (const action of used) expect(allowed).toContain(action);
  });
});
