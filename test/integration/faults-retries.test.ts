/**
 * The retry policy at the store boundary, by targeted faults (`test/support/fault-matrix.ts`): a
 * write whose answer was lost is retried only where repeating it is safe (a consume finds its own
 * session id; a counter increment is not repeated), a throttled one is retried (a sharded key
 * moves to another shard), and throttling that outlasts the retries is a 503 with Retry-After after
 * exactly three attempts.
 */
import { describe, expect, test } from '@jest/globals';
import { fuzzless, useFaultRun } from '../support/fault-matrix.js';
import type { CallRecord } from '../support/faults.js';
import { roomInMinute, tokensOfKey, windowCounts } from '../support/keys.js';

const run = useFaultRun('faults-retries');
const { key, api, stored, counted } = run;

describe('the retry policy', () => {
  const consumeWrite = (c: CallRecord) => c.command === 'UpdateItem' && c.table === 'tokens';
  const minuteHit = (c: CallRecord) => c.command === 'UpdateItem' && c.table === 'counters';

  test('a consume whose answer was lost is retried and finds its own session id: 200, not a false 410', async () => {
    const token = await api(await key()).mint();
    run.faults.arm({ kind: 'timeout', call: consumeWrite, persistent: false });
    const reply = await api(fuzzless).consume({ token });
    const outcome = counted(run.faults.disarm());
    expect(outcome).toMatchObject({ failedAttempts: 1, attempts: 2 });
    expect(reply.status).toBe(200);
    expect(await stored(token)).toMatchObject({ status: 'consumed', session_id: reply.body.data.session_id });
    expect((await api(fuzzless).consume({ token })).status).toBe(410);
  });

  test('a counter increment whose answer was lost is not repeated: the call fails, counted once, not twice', async () => {
    roomInMinute(run.stack);
    const k = await key();
    run.faults.arm({ kind: 'timeout', call: minuteHit, persistent: false });
    const reply = await api(k).create({ game_id: 101 });
    expect(counted(run.faults.disarm())).toMatchObject({ failedAttempts: 1, attempts: 1 });
    expect(reply.status).toBe(500);
    expect(await windowCounts(run.stack, k.record)).toEqual({ minute: 1, day: 1 });
    expect(await tokensOfKey(run.stack, k.record.id)).toEqual([]);
  });

  test('a throttled counter increment was not applied, so it is retried: 200, counted once', async () => {
    roomInMinute(run.stack);
    const k = await key();
    run.faults.arm({ kind: 'throttle', call: minuteHit, persistent: false });
    const reply = await api(k).create({ game_id: 101 });
    expect(counted(run.faults.disarm())).toMatchObject({ failedAttempts: 1, attempts: 2 });
    expect(reply.status).toBe(200);
    expect(await windowCounts(run.stack, k.record)).toEqual({ minute: 1, day: 1 });
  });

  test('a sharded key whose shard stays throttled counts the call in another shard: 200, counted once', async () => {
    roomInMinute(run.stack);
    const k = await key(); // 100,000 a minute: 4 counter shards
    run.faults.arm({ kind: 'throttle', call: minuteHit, persistent: true });
    const reply = await api(k).create({ game_id: 101 });
    expect(counted(run.faults.disarm())).toMatchObject({ failedAttempts: 3 });
    expect(reply.status).toBe(200);
    expect(await windowCounts(run.stack, k.record)).toEqual({ minute: 1, day: 1 });
  });

  test('throttling that outlasts the retries is a 503 with Retry-After, after exactly three attempts', async () => {
    // One counter item (60 a minute): nowhere else to count the call.
    const k = await key({ rate_limit_per_minute: 60, rate_limit_per_day: 10_000 });
    run.faults.arm({ kind: 'throttle', call: minuteHit, persistent: true });
    const reply = await api(k).create({ game_id: 101 });
    expect(counted(run.faults.disarm())).toMatchObject({ failedAttempts: 3, attempts: 3 });
    expect(reply.status).toBe(503);
    expect(reply.body).toEqual({
      success: false,
      error: 'Service busy, retry shortly',
      code: expect.any(String),
      request_id: expect.any(String),
    });
    expect(reply.headers.get('retry-after')).toBe('1');
    expect(await tokensOfKey(run.stack, k.record.id)).toEqual([]);
  });
});
