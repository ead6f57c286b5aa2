/**
 * The reliability rules in isolation: which DynamoDB failures are retried for which commands, the
 * JSON text limits read before parsing, ids handed back by refused calls, the in-memory shortcut
 * for keys whose rate window is exhausted, and the undo of a write whose outcome is unknown.
 */
import { describe, expect, test } from '@jest/globals';
import { newKeyRecord } from '../../shared/keys/api-keys.js';
import { RateLimited, TokenGone } from '../../shared/platform/errors.js';
import { IdAllocator } from '../../shared/platform/ids.js';
import type { Effect } from '../../shared/keys/call-records.js';
import { KeyCalls } from '../../shared/keys/key-calls.js';
import type { CallContext } from '../../shared/platform/call.js';
import { counterSlot } from '../../shared/keys/rate-limit.js';
import { assertJsonText, MAX_JSON_DEPTH } from '../../shared/platform/http/pipeline.js';
import { idempotent, isRetrySafe, isThrottling, isTransient, isUnsent, mayRetry } from '../../shared/platform/dynamo/client.js';
import { FixedClock, MemoryAuditStore, MemoryCounterStore, MemoryKeyStore } from '../support/fakes.js';

const throttled = Object.assign(new Error('slow down'), { name: 'ProvisionedThroughputExceededException' });
const reset = Object.assign(new Error('socket hang up'), { code: 'ECONNRESET' });
const timeout = Object.assign(new Error('timed out'), { name: 'TimeoutError' });
const serverError = Object.assign(new Error('boom'), { name: 'InternalServerError', $metadata: { httpStatusCode: 500 } });
const conditional = Object.assign(new Error('no'), { name: 'ConditionalCheckFailedException', $metadata: { httpStatusCode: 400 } });

describe('retry policy (dynamo-client)', () => {
  test('throttling is refused work: every command may repeat it', () => {
    expect(isThrottling(throttled)).toBe(true);
    for (const command of ['GetItemCommand', 'UpdateItemCommand', 'PutItemCommand']) {
      expect(mayRetry(throttled, command, { ConditionExpression: 'x = :y' })).toBe(true);
    }
  });

  test('a failure without an answer is retried for reads, plain puts and deletes, and marked writes only', () => {
    for (const error of [reset, timeout, serverError]) {
      expect(isTransient(error)).toBe(true);
      expect(mayRetry(error, 'GetItemCommand', {})).toBe(true);
      expect(mayRetry(error, 'QueryCommand', {})).toBe(true);
      expect(mayRetry(error, 'PutItemCommand', { Item: {} })).toBe(true);
      expect(mayRetry(error, 'DeleteItemCommand', { Key: {} })).toBe(true);
      // A conditional put or delete, and any update, may have been applied: not repeated...
      expect(mayRetry(error, 'PutItemCommand', { ConditionExpression: 'attribute_not_exists(k)' })).toBe(false);
      expect(mayRetry(error, 'DeleteItemCommand', { ConditionExpression: 'a = :b' })).toBe(false);
      expect(mayRetry(error, 'UpdateItemCommand', { UpdateExpression: 'ADD n :one' })).toBe(false);
      // ...unless the store marked it as harmless to repeat.
      expect(mayRetry(error, 'UpdateItemCommand', idempotent({ UpdateExpression: 'SET a = :b' }))).toBe(true);
    }
  });

  test('a connection that failed before the request left (a full socket backlog, refused) is retried whatever the command', () => {
    for (const code of ['EAGAIN', 'ECONNREFUSED']) {
      const unsent = Object.assign(new Error(`connect ${code} /tmp/dynamodb.sock`), { code, syscall: 'connect' });
      expect(isUnsent(unsent)).toBe(true);
      expect(mayRetry(unsent, 'PutItemCommand', { ConditionExpression: 'attribute_not_exists(k)' })).toBe(true);
      expect(mayRetry(unsent, 'TransactWriteItemsCommand', {})).toBe(true);
    }
    // The same code once the request was written may have been applied: only what is safe to repeat.
    const afterWrite = Object.assign(new Error('write EAGAIN'), { code: 'EAGAIN', syscall: 'write' });
    expect(isUnsent(afterWrite)).toBe(false);
    expect(mayRetry(afterWrite, 'GetItemCommand', {})).toBe(true);
    expect(mayRetry(afterWrite, 'UpdateItemCommand', { UpdateExpression: 'ADD n :one' })).toBe(false);
  });

  test('client errors are never retried', () => {
    expect(isTransient(conditional)).toBe(false);
    expect(mayRetry(conditional, 'GetItemCommand', {})).toBe(false);
    expect(mayRetry(new Error('ValidationException'), 'GetItemCommand', {})).toBe(false);
  });

  test('document-client command names count as well', () => {
    expect(isRetrySafe('GetCommand', {})).toBe(true);
    expect(isRetrySafe('UpdateCommand', {})).toBe(false);
  });
});

describe('assertJsonText (limits)', () => {
  const nested = (depth: number) => '['.repeat(depth) + ']'.repeat(depth);

  test(`nesting up to ${MAX_JSON_DEPTH} levels passes; one more is a 400`, () => {
    expect(() => assertJsonText(nested(MAX_JSON_DEPTH))).not.toThrow();
    expect(() => assertJsonText(nested(MAX_JSON_DEPTH + 1))).toThrow(`Request body is nested deeper than ${MAX_JSON_DEPTH} levels`);
    expect(() => assertJsonText(`{"a":${'{"b":'.repeat(MAX_JSON_DEPTH)}1${'}'.repeat(MAX_JSON_DEPTH)}}`)).toThrow('nested deeper');
  });

  test('brackets inside strings, also after escaped quotes and backslashes, do not count', () => {
    expect(() => assertJsonText(JSON.stringify({ s: '['.repeat(100) }))).not.toThrow();
    expect(() => assertJsonText(JSON.stringify({ s: `\\"${'{'.repeat(100)}` }))).not.toThrow();
    expect(() => assertJsonText(JSON.stringify({ s: '\\' }) + nested(3))).not.toThrow();
  });

  test('an unpaired surrogate escape is a 400; a pair, and an escaped backslash before "u", pass', () => {
    expect(() => assertJsonText('{"s":"\\ud83d\\ude00"}')).not.toThrow();
    expect(() => assertJsonText('{"s":"\\\\ud800"}')).not.toThrow();
    expect(() => assertJsonText('{"s":"\\u0041"}')).not.toThrow();
    for (const lone of ['{"s":"\\ud800"}', '{"s":"\\ud800x"}', '{"s":"\\udc00"}', '{"s":"a\\uDFFF"}']) {
      expect(() => assertJsonText(lone)).toThrow('unpaired UTF-16 surrogate');
    }
  });
});

describe('IdAllocator.release', () => {
  test('a released id is handed out again before the block, and costs no reservation', async () => {
    const counters = new MemoryCounterStore();
    const ids = new IdAllocator(counters, { sequence: 'session_id', blockSize: 2 });
    const first = await ids.nextId();
    ids.release(first);
    expect(await ids.nextId()).toBe(first);
    expect(await ids.nextId()).toBe(2);
    ids.release(2);
    expect(ids.hasSpare).toBe(true);
    expect(await ids.nextId()).toBe(2);
    expect(counters.calls).toEqual(['reserve session_id 2']);
  });

  test('at most a block of ids is kept; beyond that they are gaps', async () => {
    const ids = new IdAllocator(new MemoryCounterStore(), { sequence: 'key_id', blockSize: 1 });
    ids.release(5);
    ids.release(6);
    expect(await ids.nextId()).toBe(5);
    expect(await ids.nextId()).toBe(1);
  });
});

describe('KeyCalls: an exhausted window is remembered', () => {
  const NOW = Date.UTC(2026, 2, 4, 5, 6, 30);
  const RAW = `dpk_${'ab'.repeat(20)}`;
  const call = (): CallContext => ({ requestId: `r-${Math.random()}`, sourceIp: '203.0.113.9', userAgent: 'ua' });
  const effect = (): Effect<number> & { runs: number } => {
    const e = { runs: 0, run: async () => ++e.runs, undo: async () => undefined };
    return e;
  };

  function setup(limit: number) {
    const clock = new FixedClock(NOW);
    const counters = new MemoryCounterStore();
    const audit = new MemoryAuditStore();
    const keys = new MemoryKeyStore();
    const keyCalls = new KeyCalls({ keys, counters, audit, clock, auditRetentionDays: 90, partitionWriteUnits: 1000 });
    const key = newKeyRecord(RAW, 9, { org_id: 1, tier: 'business' }, { name: 'k', rate_limit_per_minute: limit }, NOW);
    return { clock, counters, audit, keys, keyCalls, key };
  }

  test('once a window refused, further calls are refused with no write at all until it resets', async () => {
    const { clock, counters, audit, keyCalls, key } = setup(1);
    await keyCalls.meter(key, call(), { action: 'create-session' }, effect());
    await expect(keyCalls.meter(key, call(), { action: 'create-session' }, effect())).rejects.toThrow(RateLimited);
    const writes = counters.calls.length;
    const audits = audit.puts.length;
    const e = effect();
    const c = call();
    const refused = await keyCalls.meter(key, c, { action: 'create-session' }, e).catch((x: unknown) => x);
    expect(refused).toMatchObject({ name: 'RateLimited', window: 'minute', retryAfterSeconds: 30 });
    expect(c.rateLimit?.windows.find((w) => w.name === 'minute')?.remaining).toBe(0);
    expect([counters.calls.length, audit.puts.length, e.runs]).toEqual([writes, audits, 0]);
    // The next minute counts again.
    clock.ms += 30_000;
    await expect(keyCalls.meter(key, call(), { action: 'create-session' }, effect())).resolves.toBe(1);
    const slot = counterSlot(key, clock.ms, 0, 1);
    expect(counters.counts.get(`${slot.counterKey} ${slot.minuteField}`)).toBe(1);
  });

  test('a raised limit lifts the shortcut at once; a lowered one keeps it', async () => {
    const { keyCalls, key } = setup(1);
    await keyCalls.meter(key, call(), { action: 'create-session' }, effect());
    await expect(keyCalls.meter(key, call(), { action: 'create-session' }, effect())).rejects.toThrow(RateLimited);
    await expect(keyCalls.meter({ ...key, rate_limit_per_minute: 1 }, call(), { action: 'x' }, effect())).rejects.toThrow(RateLimited);
    await expect(keyCalls.meter({ ...key, rate_limit_per_minute: 2 }, call(), { action: 'x' }, effect())).resolves.toBe(1);
  });

  test('a write that failed without a verdict is undone; a refused one (a domain error) is not', async () => {
    const { keyCalls, key } = setup(100);
    const undone: unknown[] = [];
    const failing = (error: Error): Effect<number> => ({
      run: async () => {
        throw error;
      },
      undo: async (result) => {
        undone.push(result);
      },
    });
    await expect(keyCalls.meter(key, call(), { action: 'x' }, failing(timeout))).rejects.toBe(timeout);
    expect(undone).toEqual([undefined]);
    await expect(keyCalls.meter(key, call(), { action: 'x' }, failing(new TokenGone()))).rejects.toThrow(TokenGone);
    expect(undone).toEqual([undefined]);
  });
});
