/**
 * KeyCalls.meter (unit, in-memory stores): both rate windows counted in one write, the effect run,
 * undone when a window, the counter or the audit refuses, the audit record written with the status
 * the caller gets, throttled shards tried in turn, last_used_at stamped once a minute, and never the
 * whole token or the raw key in the audit.
 */
import { describe, expect, jest, test } from '@jest/globals';
import { OutOfScope, Overloaded, RateLimited, TokenGone } from '../../shared/platform/errors.js';
import type { AuditDiff } from '../../shared/audit/audit-record.js';
import type { Effect } from '../../shared/keys/call-records.js';
import type { CallContext } from '../../shared/platform/call.js';
import { counterSlot } from '../../shared/keys/rate-limit.js';
import { NOW, RAW, setup } from '../support/key-calls.js';

const call = (): CallContext => ({ requestId: 'req-1', sourceIp: '203.0.113.9', userAgent: 'ua/1' });

/** An effect that records what happened to it. */
function effect<T>(value: T, fail?: Error) {
  const log: string[] = [];
  const e: Effect<T> = {
    run: async () => {
      log.push('run');
      if (fail) throw fail;
      return value;
    },
    undo: async (result) => {
      log.push(`undo ${String(result)}`);
    },
  };
  return { effect: e, log };
}

describe('KeyCalls.meter', () => {
  const subject = { action: 'create-session', game_id: 101, token: '3f2b8c1e-9a4d-4e7f-8b21-6c0d5e9f1a2b' };

  test('success: counts both windows, runs the effect, audits 200, reports the windows', async () => {
    const { keyCalls, key, audit, count } = setup({ rate_limit_per_minute: 5, rate_limit_per_day: 100 });
    const c = call();
    const { effect: e, log } = effect('done');
    await expect(keyCalls.meter(key, c, subject, e)).resolves.toBe('done');
    expect(log).toEqual(['run']);
    expect([count('minute'), count('day')]).toEqual([1, 1]);
    expect([...audit.records.values()]).toEqual([
      {
        org_id: 1,
        at: new Date(NOW).toISOString(),
        request_id: 'req-1',
        action: 'create-session',
        status: 200,
        key_id: 7,
        key_prefix: 'dpk_0123',
        actor: null,
        game_id: 101,
        stream_id: null,
        token_prefix: '3f2b8c1e',
        source_ip: '203.0.113.9',
        user_agent: 'ua/1',
      },
    ]);
    expect(c.rateLimit).toEqual({
      windows: [
        { name: 'minute', limit: 5, windowSeconds: 60, remaining: 4, resetSeconds: 30 },
        { name: 'day', limit: 100, windowSeconds: 86_400, remaining: 99, resetSeconds: 86_400 - (5 * 3600 + 6 * 60 + 30) },
      ],
    });
  });

  test('the minute window refusing: the day window is not counted either, the effect undone, the audit rewritten as 429', async () => {
    const { keyCalls, key, audit, counters, count } = setup({ rate_limit_per_minute: 1 });
    await keyCalls.meter(key, call(), subject, effect(1).effect);
    const c = { ...call(), requestId: 'req-2' };
    const { effect: e, log } = effect('second');
    const error = await keyCalls.meter(key, c, subject, e).catch((x: unknown) => x);
    expect(error).toBeInstanceOf(RateLimited);
    expect(error).toMatchObject({ window: 'minute', retryAfterSeconds: 30 });
    expect(log).toEqual(['run', 'undo second']);
    expect([count('minute'), count('day')]).toEqual([1, 1]);
    // One conditional write per call, both windows in it: the refused call wrote no count at all.
    expect(counters.calls).toEqual([`count ${counterSlot(key, NOW, 0, 1).counterKey}`, `count ${counterSlot(key, NOW, 0, 1).counterKey}`]);
    const second = [...audit.records.values()].filter((r) => r.request_id === 'req-2');
    expect(second).toEqual([expect.objectContaining({ status: 429 })]);
    expect(c.rateLimit?.windows.map((w) => w.remaining)).toEqual([0, expect.any(Number)]);
  });

  test('the day window refusing: the minute window is not counted either', async () => {
    const { keyCalls, key, count } = setup({ rate_limit_per_minute: 100, rate_limit_per_day: 2 });
    await keyCalls.meter(key, call(), subject, effect(1).effect);
    await keyCalls.meter(key, call(), subject, effect(2).effect);
    const error = await keyCalls.meter(key, call(), subject, effect(3).effect).catch((x: unknown) => x);
    expect(error).toMatchObject({ name: 'RateLimited', window: 'day', retryAfterSeconds: 86_400 - (5 * 3600 + 6 * 60 + 30) });
    expect([count('minute'), count('day')]).toEqual([2, 2]);
  });

  test('both windows refusing: the retry is due when the day window resets', async () => {
    const { keyCalls, key, counters } = setup({ rate_limit_per_minute: 1, rate_limit_per_day: 1 });
    await keyCalls.meter(key, call(), subject, effect(1).effect);
    const error = await keyCalls.meter(key, call(), subject, effect(2).effect).catch((x: unknown) => x);
    expect(error).toBeInstanceOf(RateLimited);
    // Retrying when the minute resets would only meet the day window: Retry-After names the later reset.
    expect(error).toMatchObject({ window: 'day', retryAfterSeconds: 86_400 - (5 * 3600 + 6 * 60 + 30) });
    expect(counters.calls).toHaveLength(2);
  });

  test('the effect failing: the call stays counted and is audited with the failure’s status', async () => {
    const { keyCalls, key, audit, count } = setup();
    const { effect: e, log } = effect('x', new TokenGone());
    await expect(keyCalls.meter(key, call(), subject, e)).rejects.toThrow(TokenGone);
    expect(log).toEqual(['run']);
    expect([count('minute'), count('day')]).toEqual([1, 1]);
    expect([...audit.records.values()].map((r) => r.status)).toEqual([410]);
  });

  test('an unexpected effect failure is audited as 500 and rethrown as is', async () => {
    const { keyCalls, key, audit } = setup();
    const boom = new Error('disk on fire');
    await expect(keyCalls.meter(key, call(), subject, effect('x', boom).effect)).rejects.toBe(boom);
    expect([...audit.records.values()].map((r) => r.status)).toEqual([500]);
  });

  test('a refusal after authentication (no effect) is counted, audited with its status and thrown', async () => {
    const { keyCalls, key, audit, count } = setup();
    const refusal = new OutOfScope('no access');
    await expect(keyCalls.meter(key, call(), { action: 'create-session', game_id: 999 }, undefined, refusal)).rejects.toBe(refusal);
    expect([count('minute'), count('day')]).toEqual([1, 1]);
    expect(audit.puts.map((r) => r.status)).toEqual([403]);
  });

  test('a refusal that a window also refuses is a 429, counted in neither window', async () => {
    const { keyCalls, key, audit, count } = setup({ rate_limit_per_minute: 1 });
    await keyCalls.meter(key, call(), subject, effect(1).effect);
    const c = { ...call(), requestId: 'req-2' };
    await expect(keyCalls.meter(key, c, { action: 'create-session' }, undefined, new OutOfScope('no'))).rejects.toThrow(RateLimited);
    expect(count('day')).toBe(1);
    expect([...audit.records.values()].find((r) => r.request_id === 'req-2')?.status).toBe(429);
  });

  test('a failing counter (throttled) fails the call: the effect is undone and the audit says 503', async () => {
    const { keyCalls, key, audit, counters } = setup();
    counters.failNext.count = new Overloaded();
    const { effect: e, log } = effect('t');
    await expect(keyCalls.meter(key, call(), subject, e)).rejects.toThrow(Overloaded);
    expect(log).toEqual(['run', 'undo t']);
    expect([...audit.records.values()].map((r) => r.status)).toEqual([503]);
  });

  test('a throttled shard: up to three shards are tried before the call is a 503, each a different one', async () => {
    // 100,000 calls a minute: 4 shards (rate-limit.ts).
    const { keyCalls, key, counters } = setup({ rate_limit_per_minute: 100_000, rate_limit_per_day: 1_000_000 });
    const shardsTried = () => new Set(counters.calls.filter((c) => c.startsWith('count ')).splice(-3)).size;
    counters.failCounts = [new Overloaded(), new Overloaded()];
    await expect(keyCalls.meter(key, call(), subject, effect(1).effect)).resolves.toBeDefined();
    expect(shardsTried()).toBe(3);
    counters.calls.length = 0;
    counters.failCounts = [new Overloaded(), new Overloaded(), new Overloaded()];
    await expect(keyCalls.meter(key, { ...call(), requestId: 'req-2' }, subject, effect(2).effect)).rejects.toThrow(Overloaded);
    expect(counters.calls.filter((c) => c.startsWith('count '))).toHaveLength(3);
    expect(shardsTried()).toBe(3);
  });

  test('a failing audit write fails the call and undoes the effect; the audit is written again', async () => {
    const { keyCalls, key, audit } = setup();
    audit.failNext = new Error('audit down');
    const { effect: e, log } = effect('t');
    await expect(keyCalls.meter(key, call(), subject, e)).rejects.toThrow('audit down');
    expect(log).toEqual(['run', 'undo t']);
    expect([...audit.records.values()].map((r) => r.status)).toEqual([500]);
  });

  test('a failing compensation is reported, and the call still fails with its own error', async () => {
    const { keyCalls, key, background } = setup({ rate_limit_per_minute: 1 });
    await keyCalls.meter(key, call(), subject, effect(1).effect);
    const e: Effect<number> = {
      run: async () => 2,
      undo: jest.fn<(r: number) => Promise<void>>().mockRejectedValue(new Error('undo failed')),
    };
    await expect(keyCalls.meter(key, call(), subject, e)).rejects.toThrow(RateLimited);
    expect(e.undo).toHaveBeenCalledWith(2);
    expect(background).toEqual(['compensation: undo']);
  });

  test("an update's diff: kept as expected when the write agrees, corrected from the write's answer when it does not", async () => {
    const { keyCalls, key, audit } = setup();
    const expected = { name: { before: 'a', after: 'b' } };
    const update = (before: string): Effect<string> => ({
      run: async () => before,
      diff: (was): AuditDiff => (was === 'b' ? {} : { name: { before: was, after: 'b' } }),
    });
    const updateSubject = { action: 'mcp:tools/call:update_game', game_id: 101, changes: ['name'], diff: expected };
    await keyCalls.meter(key, call(), updateSubject, update('a'));
    expect(audit.puts).toHaveLength(1);
    expect(audit.puts[0]).toMatchObject({ changes: ['name'], diff: expected });
    // Renamed by someone else since the read: the record says what this write really changed.
    await keyCalls.meter(key, { ...call(), requestId: 'req-2' }, updateSubject, update('z'));
    expect(audit.puts).toHaveLength(3);
    expect([...audit.records.values()].find((r) => r.request_id === 'req-2')?.diff).toEqual({ name: { before: 'z', after: 'b' } });
    // A repeated write reads its own first application as "before" (an empty diff): the expected one stays.
    await keyCalls.meter(key, { ...call(), requestId: 'req-3' }, updateSubject, update('b'));
    expect(audit.puts).toHaveLength(4);
    expect([...audit.records.values()].find((r) => r.request_id === 'req-3')?.diff).toEqual(expected);
  });

  test('last_used_at is stamped at most once per key and minute', async () => {
    const { keyCalls, key, keys, clock } = setup();
    await keyCalls.meter(key, call(), subject, effect(1).effect);
    clock.ms = NOW + 20_000;
    await keyCalls.meter(key, call(), subject, effect(2).effect);
    clock.ms = NOW + 40_000;
    await keyCalls.meter(key, call(), subject, effect(3).effect);
    expect(keys.touches).toEqual([
      { keyHash: key.key_hash, at: new Date(NOW).toISOString() },
      { keyHash: key.key_hash, at: new Date(NOW + 40_000).toISOString() },
    ]);
  });

  test('the audit record never holds the whole token or the raw key', async () => {
    const { keyCalls, key, audit } = setup();
    await keyCalls.meter(key, call(), subject, effect(1).effect);
    const text = JSON.stringify(audit.puts);
    expect(text).not.toContain(subject.token);
    expect(text).not.toContain(RAW);
  });
});
