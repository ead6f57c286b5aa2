/**
 * `Idempotency-Key` on create-session over HTTP: a retry with the same key and body replays the
 * stored answer (same token, `Idempotent-Replayed: true`) and mints, counts and audits nothing; the
 * same key with another body is 422; a duplicate while the first runs is 409 with Retry-After; a 5xx
 * or a 429 is not stored; keys are scoped to the API key; a replay still needs a valid key.
 */
import { afterAll, beforeAll, describe, expect, test } from '@jest/globals';
import { routes } from '../../shared/routes.js';
import type { DataAccess } from '../../shared/platform/route.js';
import {
  auditOfKey,
  auditOfRequest,
  createTestKey,
  putKeyRecord,
  roomInMinute,
  startOfNextMinute,
  tokensOfKey,
  UNLIMITED,
  windowCounts,
  type TestKey,
} from '../support/keys.js';
import { startStack, type Stack } from '../support/local-stack.js';
import { describeStages, RoundTripRecorder, stageCount } from '../support/round-trips.js';
import { logicalTableName } from '../../infra/local/table-names.js';

let stack: Stack;
const recorder = new RoundTripRecorder();

/**
 * Injected behaviour of the next DynamoDB call matching `table:Action`: fail it, lose its answer
 * (`unsent`: the request never left, a connection reset; `applied`: a timeout after it was applied),
 * or hold it until released.
 */
const faults = new Map<string, { fail: true } | { lose: 'unsent' | 'applied' } | { hold: Promise<void>; reached: () => void }>();
/** `table:Action` of every call the create-session requests of this file made. */
const used = new Set<string>();

beforeAll(async () => {
  // Its recorder sees every call of the service's client: the workers' are not this request's.
  stack = await startStack({ workers: false });
  recorder.attach(stack.services.client);
  stack.services.client.middlewareStack.add(
    (next, context) => async (args) => {
      const table = logicalTableName((args.input as { TableName?: string }).TableName ?? '');
      // Document-client commands (`PutCommand`) and low-level ones (`PutItemCommand`) under one IAM name.
      const action = `${table}:${(context.commandName ?? '').replace(/Command$/, '').replace(/^(Get|Put|Update|Delete)$/, '$1Item')}`;
      used.add(action);
      const fault = faults.get(action);
      if (fault) {
        faults.delete(action);
        if ('fail' in fault) throw Object.assign(new Error('injected fault'), { name: 'InjectedFault' });
        if ('lose' in fault) {
          if (fault.lose === 'applied') await next(args);
          throw Object.assign(new Error('request timed out'), { name: 'TimeoutError', code: 'ETIMEDOUT' });
        }
        fault.reached();
        await fault.hold;
      }
      return next(args);
    },
    { step: 'initialize', name: 'idempotencyFaults' },
  );
});
afterAll(() => stack.stop());

const create = (key: TestKey, body: unknown, idempotencyKey?: string) =>
  stack.post('create-session', body, {
    'x-api-key': key.raw,
    ...(idempotencyKey === undefined ? {} : { 'idempotency-key': idempotencyKey }),
  });

let n = 0;
const freshKey = () => `retry-${++n}-${Math.random().toString(36).slice(2)}`;

/** Hold the next call of `table:Action` until the returned release is called. */
function holdNext(action: string): { reached: Promise<void>; release: () => void } {
  let release!: () => void;
  let reached!: () => void;
  const hold = new Promise<void>((r) => (release = r));
  const reachedP = new Promise<void>((r) => (reached = r));
  faults.set(action, { hold, reached });
  return { reached: reachedP, release };
}

describe('Idempotency-Key on create-session', () => {
  test('a retry returns the identical answer, marked replayed; one token, one count, one audit record', async () => {
    startOfNextMinute(stack);
    const key = await createTestKey(stack);
    const idem = freshKey();
    const body = { game_id: 101, external_ref: 'order-1' };
    const first = await create(key, body, idem);
    expect(first.status).toBe(200);
    expect(first.headers.get('idempotent-replayed')).toBeNull();
    const again = await create(key, body, idem);
    expect(again.status).toBe(200);
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    expect(again.body).toEqual(first.body);
    // The original's rate-limit headers, not a new count.
    expect(again.headers.get('ratelimit')).toBe(first.headers.get('ratelimit'));
    expect(again.headers.get('ratelimit-policy')).toBe(first.headers.get('ratelimit-policy'));
    expect(again.headers.get('x-request-id')).not.toBe(first.headers.get('x-request-id'));

    expect(await tokensOfKey(stack, key.record.id)).toHaveLength(1);
    expect(await windowCounts(stack, key.record)).toEqual({ minute: 1, day: 1 });
    expect((await auditOfKey(stack, key.record.id)).filter((r) => r.action === 'create-session')).toHaveLength(1);
  });

  test('the same key with a different body: 422, nothing minted; counted and audited like any call of a valid key', async () => {
    roomInMinute(stack);
    const key = await createTestKey(stack, UNLIMITED);
    const idem = freshKey();
    expect((await create(key, { game_id: 101 }, idem)).status).toBe(200);
    const counts = await windowCounts(stack, key.record);
    const other = await create(key, { game_id: 102 }, idem);
    expect(other.status).toBe(422);
    expect(other.body).toEqual({
      success: false,
      error: 'Idempotency-Key was already used with a different request body',
      code: expect.any(String),
      request_id: expect.any(String),
    });
    expect(await tokensOfKey(stack, key.record.id)).toHaveLength(1);
    // docs/api.md#idempotent-retries: every call a valid key makes counts, its 422 included.
    expect(await windowCounts(stack, key.record)).toEqual({ minute: counts.minute! + 1, day: counts.day! + 1 });
    expect(await auditOfRequest(stack, 1, other.headers.get('x-request-id'))).toEqual([
      expect.objectContaining({ action: 'create-session', status: 422, key_id: key.record.id }),
    ]);
  });

  test('a duplicate while the first is still running: 409 with Retry-After, counted and audited; afterwards the first answer is replayed', async () => {
    roomInMinute(stack);
    const key = await createTestKey(stack, UNLIMITED);
    const idem = freshKey();
    const held = holdNext('tokens:PutItem');
    const first = create(key, { game_id: 101 }, idem);
    await held.reached;
    const duplicate = await create(key, { game_id: 101 }, idem);
    expect(duplicate.status).toBe(409);
    expect(duplicate.headers.get('retry-after')).toBe('1');
    expect(duplicate.body).toEqual({
      success: false,
      error: 'A request with this Idempotency-Key is still in progress; retry shortly',
      code: expect.any(String),
      request_id: expect.any(String),
    });
    held.release();
    const done = await first;
    expect(done.status).toBe(200);
    // docs/api.md#idempotent-retries: the 409 is a call of the key like any other.
    expect(await windowCounts(stack, key.record)).toEqual({ minute: 2, day: 2 });
    expect(await auditOfRequest(stack, 1, duplicate.headers.get('x-request-id'))).toEqual([
      expect.objectContaining({ action: 'create-session', status: 409, key_id: key.record.id }),
    ]);
    const later = await create(key, { game_id: 101 }, idem);
    expect(later.headers.get('idempotent-replayed')).toBe('true');
    expect(later.body.data.token).toBe(done.body.data.token);
    expect(await tokensOfKey(stack, key.record.id)).toHaveLength(1);
  });

  test('a 5xx is not stored: the retry runs again and succeeds, and that answer is the one replayed', async () => {
    const key = await createTestKey(stack, UNLIMITED);
    const idem = freshKey();
    faults.set('tokens:PutItem', { fail: true });
    const failed = await create(key, { game_id: 101 }, idem);
    expect(failed.status).toBe(500);
    const retry = await create(key, { game_id: 101 }, idem);
    expect(retry.status).toBe(200);
    expect(retry.headers.get('idempotent-replayed')).toBeNull();
    const replay = await create(key, { game_id: 101 }, idem);
    expect(replay.headers.get('idempotent-replayed')).toBe('true');
    expect(replay.body.data.token).toBe(retry.body.data.token);
  });

  test('a replay whose claim lost its answer (the request never left) is made again: the stored answer, nothing minted', async () => {
    const key = await createTestKey(stack, UNLIMITED);
    const idem = freshKey();
    const first = await create(key, { game_id: 101 }, idem);
    expect(first.status).toBe(200);
    faults.set('idempotency:PutItem', { lose: 'unsent' });
    const replay = await create(key, { game_id: 101 }, idem);
    expect(faults.has('idempotency:PutItem')).toBe(false);
    expect(replay.status).toBe(200);
    expect(replay.headers.get('idempotent-replayed')).toBe('true');
    expect(replay.body).toEqual(first.body);
    expect(await tokensOfKey(stack, key.record.id)).toHaveLength(1);
  });

  test('a first claim applied but its answer lost: made again, it meets itself in progress (409, Retry-After), and nothing is minted', async () => {
    const key = await createTestKey(stack, UNLIMITED);
    faults.set('idempotency:PutItem', { lose: 'applied' });
    const reply = await create(key, { game_id: 101 }, freshKey());
    expect(faults.has('idempotency:PutItem')).toBe(false);
    expect(reply.status).toBe(409);
    expect(reply.headers.get('retry-after')).toBe('1');
    expect(await tokensOfKey(stack, key.record.id)).toEqual([]);
  });

  test('a 429 is not stored: once the window resets, the same key runs', async () => {
    startOfNextMinute(stack);
    const key = await createTestKey(stack, { rate_limit_per_minute: 1 });
    expect((await create(key, { game_id: 101 })).status).toBe(200);
    const idem = freshKey();
    const limited = await create(key, { game_id: 101 }, idem);
    expect(limited.status).toBe(429);
    stack.clock.advance(60_000);
    const later = await create(key, { game_id: 101 }, idem);
    expect(later.status).toBe(200);
    expect(later.headers.get('idempotent-replayed')).toBeNull();
  });

  test('a refusal the request caused (403 out of scope) is stored and replayed, counted once', async () => {
    startOfNextMinute(stack);
    const key = await createTestKey(stack, { allowed_game_ids: [102] });
    const idem = freshKey();
    const refused = await create(key, { game_id: 101 }, idem);
    expect(refused.status).toBe(403);
    const again = await create(key, { game_id: 101 }, idem);
    expect(again.status).toBe(403);
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    expect(sameAnswer(again, refused)).toBe(true);
    expect(await windowCounts(stack, key.record)).toEqual({ minute: 1, day: 1 });
  });

  test('scoped to the API key: another key with the same Idempotency-Key mints its own token', async () => {
    const [a, b] = [await createTestKey(stack, UNLIMITED), await createTestKey(stack, UNLIMITED)];
    const idem = freshKey();
    const first = await create(a, { game_id: 101 }, idem);
    const other = await create(b, { game_id: 101 }, idem);
    expect(other.status).toBe(200);
    expect(other.headers.get('idempotent-replayed')).toBeNull();
    expect(other.body.data.token).not.toBe(first.body.data.token);
  });

  test('a replay still needs a valid key: revoked is 401', async () => {
    const key = await createTestKey(stack, UNLIMITED);
    const idem = freshKey();
    expect((await create(key, { game_id: 101 }, idem)).status).toBe(200);
    await putKeyRecord(stack, { ...key.record, is_active: false });
    const replay = await create(key, { game_id: 101 }, idem);
    expect(replay.status).toBe(401);
    expect(replay.headers.get('idempotent-replayed')).toBeNull();
  });

  test('a key that fails authentication stores nothing: a valid retry runs', async () => {
    const key = await createTestKey(stack, { ...UNLIMITED, expires_at: new Date(stack.clock.now() + 60_000).toISOString() });
    const idem = freshKey();
    stack.clock.advance(61_000);
    expect((await create(key, { game_id: 101 }, idem)).status).toBe(401);
    await putKeyRecord(stack, { ...key.record, expires_at: null });
    const retry = await create(key, { game_id: 101 }, idem);
    expect(retry.status).toBe(200);
    expect(retry.headers.get('idempotent-replayed')).toBeNull();
  });

  test.each([
    ['empty', ''],
    ['longer than 255', 'k'.repeat(256)],
    ['not printable ASCII', 'clé-é'],
  ])('an invalid header (%s): 400 naming it (param), nothing minted', async (_case, value) => {
    const key = await createTestKey(stack, UNLIMITED);
    const res = await create(key, { game_id: 101 }, value);
    expect(res.status).toBe(400);
    expect(res.body).toEqual({
      success: false,
      error: 'Idempotency-Key: must be 1 to 255 printable ASCII characters',
      code: 'invalid_input',
      param: 'Idempotency-Key',
      request_id: expect.any(String),
    });
    expect(await tokensOfKey(stack, key.record.id)).toHaveLength(0);
  });

  test('255 printable characters (spaces and symbols included) are accepted', async () => {
    const key = await createTestKey(stack, UNLIMITED);
    const value = `a b~!{}"'`.padEnd(255, 'x');
    expect((await create(key, { game_id: 101 }, value)).status).toBe(200);
    expect((await create(key, { game_id: 101 }, value)).headers.get('idempotent-replayed')).toBe('true');
  });
});

/** Keep a test that moves the clock by minutes inside one UTC day: from 23:50 on, start the next day. */
function awayFromMidnight(): void {
  const msOfDay = stack.clock.now() % 86_400_000;
  if (msOfDay > 86_400_000 - 10 * 60_000) stack.clock.advance(86_400_000 - msOfDay + 200);
}

/** The DynamoDB calls of a measurement that write (a refused conditional write writes nothing). */
const writesOf = (calls: readonly { action: string; table?: string; error?: string }[]) =>
  calls.filter((c) => !['GetItem', 'Query', 'BatchGetItem'].includes(c.action) && !c.error).map((c) => `${c.action} ${c.table}`);

describe('Idempotency-Key refusals are calls of the key (docs/api.md#idempotent-retries)', () => {
  test("the issue's case: a 1/min, 2/day key retrying with another body gets 422 once, then 429; each counted and audited", async () => {
    awayFromMidnight();
    startOfNextMinute(stack);
    const key = await createTestKey(stack, { rate_limit_per_minute: 1, rate_limit_per_day: 2 });
    const idem = freshKey();
    expect((await create(key, { game_id: 101 }, idem)).status).toBe(200);
    stack.clock.advance(60_000);
    const answers = [];
    for (let i = 0; i < 5; i++) answers.push(await create(key, { game_id: 102 }, idem));
    expect(answers.map((a) => a.status)).toEqual([422, 429, 429, 429, 429]);
    for (const limited of answers.slice(1)) expect(limited.headers.get('retry-after')).toMatch(/^\d+$/);
    expect(await windowCounts(stack, key.record)).toEqual({ minute: 1, day: 2 });
    // A minute later the day is spent: still 429, never a free 422.
    stack.clock.advance(60_000);
    expect((await create(key, { game_id: 102 }, idem)).status).toBe(429);
    const audit = (await auditOfKey(stack, key.record.id)).map((r) => [r.action, r.status]);
    // The counted refusals are audited; 429s answered from the container's memory are tallied instead (docs/architecture.md).
    expect(audit.slice(0, 3)).toEqual([
      ['create-session', 200],
      ['create-session', 422],
      ['create-session', 429],
    ]);
    expect(audit.slice(3).every(([, status]) => status === 429)).toBe(true);
    expect(await tokensOfKey(stack, key.record.id)).toHaveLength(1);
  });

  test('an unknown, well-formed key with an Idempotency-Key writes nothing: one key read, 401', async () => {
    const { value, calls } = await recorder.measure(() =>
      create({ raw: `dpk_${'7'.repeat(40)}` } as TestKey, { game_id: 101 }, freshKey()),
    );
    expect(value.status).toBe(401);
    expect(writesOf(calls)).toEqual([]);
    expect(calls.filter((c) => c.table === 'idempotency')).toEqual([]);
  });

  test('a key this container has not yet seen valid: the claim waits for its authentication (a stage more, once)', async () => {
    const key = await createTestKey(stack, UNLIMITED);
    const first = await recorder.measure(() => create(key, { game_id: 101 }, freshKey()));
    expect(first.value.status).toBe(200);
    expect(describeStages(first.calls)).toMatch(/^[^|]*GetItem keys[^|]*\| PutItem idempotency \|/);
    // Seen valid now: its next claim rides with the key read, and so do its count, token and audit record.
    const next = await recorder.measure(() => create(key, { game_id: 101 }, freshKey()));
    expect(describeStages(next.calls)).toMatch(/^[^|]*PutItem idempotency[^|]*PutItem tokens[^|]*\|/);
    expect(stageCount(next.calls)).toBe(2);
  });

  test('a key revoked after this container saw it valid: one call’s writes ahead (claim, count, token, audit) taken back, then nothing', async () => {
    const key = await createTestKey(stack, UNLIMITED);
    expect((await create(key, { game_id: 101 }, freshKey())).status).toBe(200);
    await putKeyRecord(stack, { ...key.record, is_active: false });
    const once = await recorder.measure(() => create(key, { game_id: 101 }, freshKey()));
    expect(once.value.status).toBe(401);
    // The claim released, the token deleted, the count taken back, the audit record rewritten with the 401.
    expect(
      writesOf(once.calls)
        .filter((w) => w !== 'UpdateItem keys')
        .sort(),
    ).toEqual([
      'DeleteItem idempotency',
      'DeleteItem tokens',
      'PutItem audit',
      'PutItem audit',
      'PutItem idempotency',
      'PutItem tokens',
      'UpdateItem counters',
      'UpdateItem counters',
    ]);
    expect(await tokensOfKey(stack, key.record.id)).toHaveLength(1);
    const then = await recorder.measure(() => create(key, { game_id: 101 }, freshKey()));
    expect(then.value.status).toBe(401);
    expect(writesOf(then.calls)).toEqual([]);
  });
});

describe('round trips and data access with Idempotency-Key', () => {
  test('first call: the claim, count, token and audit ride with authentication (2 stages with the answer stored); a replay takes back what it wrote ahead (2)', async () => {
    const key = await createTestKey(stack, UNLIMITED);
    const idem = freshKey();
    await create(key, { game_id: 101 }); // warm: the key's use stamp and the catalog cache
    const first = await recorder.measure(() => create(key, { game_id: 101 }, idem));
    expect(first.value.status).toBe(200);
    expect(describeStages(first.calls)).toMatch(/^[^|]*PutItem idempotency[^|]*PutItem tokens[^|]*\|/);
    expect(stageCount(first.calls)).toBe(2);

    const replay = await recorder.measure(() => create(key, { game_id: 101 }, idem));
    expect(replay.value.headers.get('idempotent-replayed')).toBe('true');
    // The refused claim returns the stored record (Powertools asks for ALL_OLD): nothing is read after
    // it. What went out beside it is taken back: the token, the count and the audit record.
    expect(describeStages(replay.calls)).toBe(
      'GetItem keys + PutItem idempotency + UpdateItem counters + PutItem tokens + PutItem audit | DeleteItem tokens + UpdateItem counters + DeleteItem audit',
    );
    expect(await tokensOfKey(stack, key.record.id)).toHaveLength(2);
  });

  test('without the header nothing touches the idempotency table', async () => {
    const key = await createTestKey(stack, UNLIMITED);
    await create(key, { game_id: 101 });
    const { calls } = await recorder.measure(() => create(key, { game_id: 101 }));
    expect(calls.filter((c) => c.table === 'idempotency')).toEqual([]);
    expect(stageCount(calls)).toBe(1);
  });

  test('every action on the idempotency table is declared for create-session, and every declared one was used', () => {
    const declared = ((routes.find((r) => r.operation === 'create-session')!.data as DataAccess).idempotency ?? []).map(
      (a) => `idempotency:${a}`,
    );
    expect([...used].filter((a) => a.startsWith('idempotency:')).sort()).toEqual(declared.sort());
  });
});

/**
 * Whether a replay gives the stored answer's body: the same in every field but `request_id`, which
 * names the request that was answered (a replay is a request of its own: its `x-request-id`).
 */
function sameAnswer(replay: { body: any; headers: Headers }, original: { body: any }): boolean {
  const { request_id: replayId, ...replayed } = replay.body as Record<string, unknown>;
  const { request_id: _originalId, ...stored } = original.body as Record<string, unknown>;
  expect(replayed).toEqual(stored);
  expect(replayId ?? null).toBe('request_id' in replay.body ? replay.headers.get('x-request-id') : null);
  return true;
}
