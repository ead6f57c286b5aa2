/**
 * Fault injection at the store boundary: for every operation, each DynamoDB call it makes fails in
 * turn — throttled, refused by a condition that cannot fail, a network error, a timeout after the
 * write was applied — on its first attempt only (a safe retry must recover) and on every attempt.
 * After each faulted request the tables are read back. Invariants: the client gets the answer it
 * would have had, or a 5xx envelope (503 with Retry-After when throttled); no token exists that was
 * not counted against its key; a consumed token never reads as active, and a failed consume that
 * did not apply leaves the token usable; no session id is handed out twice; the audit never claims
 * an outcome other than the one the client was given.
 */
import { afterAll, beforeAll, describe, expect, test } from '@jest/globals';
import { GetCommand } from '@aws-sdk/lib-dynamodb';
import { adminApi, type AdminApi } from '../support/admin-api.js';
import { FaultInjector, type CallRecord, type FaultKind, type FaultOutcome } from '../support/faults.js';
import { addFigures, printFigures } from '../support/figures.js';
import { auditOfRequest, createTestKey, roomInMinute, tokensOfKey, UNLIMITED, windowCounts, type TestKey } from '../support/keys.js';
import { capturedLogs, startStack, type Stack } from '../support/local-stack.js';
import { INITIALIZE, postMcp } from '../support/mcp.js';
import { sessionsApi, type Reply } from '../support/sessions-api.js';
import { stopAll } from '../support/teardown.js';

let stack: Stack;
let faults: FaultInjector;
let admin: AdminApi;
const sessionIds: number[] = [];
const figures = { faultsInjected: 0, faultRequests: 0, recoveredByRetry: 0, auditCorrectionsLogged: 0 };

beforeAll(async () => {
  stack = await startStack();
  faults = new FaultInjector(stack.services.client);
  admin = adminApi(stack);
});
afterAll(() =>
  stopAll(
    () => {
      const { auditCorrectionsLogged, ...counts } = figures;
      addFigures(counts, { auditCorrectionsLogged });
      printFigures(
        `faults: ${figures.faultsInjected.toLocaleString('en-US')} failed DynamoDB attempts injected into ` +
          `${figures.faultRequests.toLocaleString('en-US')} requests, ${figures.recoveredByRetry} recovered by a safe retry`,
      );
    },
    () => stack?.stop(),
  ),
);

/** What an operation's check gets: the faulted request's answer and what the fault did. */
interface Faulted {
  readonly reply: Reply;
  readonly outcome: FaultOutcome;
  readonly kind: FaultKind;
}

/** An operation under test: prepare its state, run it once, check the tables after. */
interface Operation<S> {
  readonly name: string;
  /** The status it answers without faults. */
  readonly baseline: number;
  readonly org: number;
  setup(): Promise<S>;
  run(state: S): Promise<Reply>;
  check(state: S, faulted: Faulted): Promise<void>;
}

const key = (settings = {}) => createTestKey(stack, { ...UNLIMITED, ...settings });
const api = (k: TestKey) => sessionsApi(stack, () => k.raw);
const stored = async (token: string) =>
  (await stack.services.client.send(new GetCommand({ TableName: stack.tableNames.tokens, Key: { token }, ConsistentRead: true }))).Item;

/** Tokens of a key are never more than its counted calls; success counts exactly once per window. */
async function countedTokens(k: TestKey, okTokens: number, ok: boolean): Promise<void> {
  const counts = await windowCounts(stack, k.record);
  const tokens = await tokensOfKey(stack, k.record.id);
  expect(tokens.length).toBe(okTokens);
  expect(tokens.length).toBeLessThanOrEqual(Math.min(counts.minute ?? 0, counts.day ?? 0));
  if (ok) expect(counts).toEqual({ minute: okTokens, day: okTokens });
}

const operations: Operation<any>[] = [
  {
    name: 'create-session',
    baseline: 200,
    org: 1,
    setup: () => key(),
    run: (k: TestKey) => api(k).create({ game_id: 101, metadata: { n: 1 } }),
    check: async (k: TestKey, { reply }) => {
      await countedTokens(k, reply.status === 200 ? 1 : 0, reply.status === 200);
      if (reply.status === 200) expect((await stored(reply.body.data.token))?.status).toBe('active');
    },
  },
  {
    name: 'create-session out of scope (403)',
    baseline: 403,
    org: 1,
    setup: () => key({ allowed_game_ids: [102] }),
    run: (k: TestKey) => api(k).create({ game_id: 101 }),
    check: async (k: TestKey) => countedTokens(k, 0, false),
  },
  {
    name: 'create-session over the minute limit (429)',
    baseline: 429,
    org: 1,
    setup: async () => {
      const k = await key({ rate_limit_per_minute: 1 });
      await api(k).mint();
      return k;
    },
    run: (k: TestKey) => api(k).create({ game_id: 101 }),
    check: async (k: TestKey, { outcome, kind }) => {
      // Only when the compensation itself failed on every attempt does the refused token stay: never
      // handed out (its id was never sent), so unreachable, and the failure is logged.
      const orphan =
        outcome.target?.command === 'DeleteItem' &&
        outcome.target.table === 'tokens' &&
        kind !== 'timeout' &&
        outcome.failedAttempts === outcome.attempts;
      expect(await tokensOfKey(stack, k.record.id)).toHaveLength(orphan ? 2 : 1);
      const counts = await windowCounts(stack, k.record);
      expect(counts.minute).toBe(1);
      // The refused call is taken back from the day window; if that answer was lost it stays counted (never under-counted).
      expect([1, 2]).toContain(counts.day);
    },
  },
  {
    name: 'validate-session',
    baseline: 200,
    org: 1,
    setup: async () => ({ token: await api(await key()).mint() }),
    run: ({ token }) => api(fuzzless).validate(token),
    check: async ({ token }, { reply }) => {
      if (reply.status === 200) expect(reply.body.data).toMatchObject({ valid: true, status: 'active' });
      expect((await stored(token))?.status).toBe('active');
    },
  },
  {
    name: 'consume-session',
    baseline: 200,
    org: 1,
    setup: async () => ({ token: await api(await key()).mint() }),
    run: ({ token }) => api(fuzzless).consume({ token, player_uuid: 'p-1' }),
    check: async ({ token }, { reply }) => {
      const item = await stored(token);
      if (reply.status === 200) {
        sessionIds.push(reply.body.data.session_id);
        expect(item).toMatchObject({ status: 'consumed', session_id: reply.body.data.session_id });
      }
      // A consumed token never reads as active; one the failure left active is still the user's to consume.
      const view = (await api(fuzzless).validate(token)).body.data;
      expect(view.status).toBe(item?.status);
      const again = await api(fuzzless).consume({ token });
      expect(again.status).toBe(item?.status === 'active' ? 200 : 410);
      if (again.status === 200) sessionIds.push(again.body.data.session_id);
    },
  },
  {
    name: 'consume-session of a used token (410)',
    baseline: 410,
    org: 1,
    setup: async () => {
      const token = await api(await key()).mint();
      const first = await api(fuzzless).consume({ token });
      sessionIds.push(first.body.data.session_id);
      return { token, sessionId: first.body.data.session_id };
    },
    run: ({ token }) => api(fuzzless).consume({ token }),
    check: async ({ token, sessionId }) => expect(await stored(token)).toMatchObject({ status: 'consumed', session_id: sessionId }),
  },
  {
    name: 'revoke-session',
    baseline: 200,
    org: 1,
    setup: async () => {
      const k = await key();
      return { k, token: await api(k).mint() };
    },
    run: ({ k, token }) => api(k).revoke({ token }),
    check: async ({ token }, { reply, outcome, kind }) => {
      // The token is shared, so a revoke is never undone (an undo could overwrite someone else's
      // write): the call is counted first, and only a revoke whose own answer was lost for good (a
      // persistent timeout of the token write, a 5xx: outcome unknown) may have taken effect unseen.
      const status = (await stored(token))?.status;
      const lostRevoke = kind === 'timeout' && outcome.target?.table === 'tokens' && reply.status >= 500;
      if (reply.status === 200) expect(status).toBe('revoked');
      else if (lostRevoke) expect(['active', 'revoked']).toContain(status);
      else expect(status).toBe('active');
    },
  },
  {
    name: 'list-keys',
    baseline: 200,
    org: 1,
    setup: async () => undefined,
    run: () => admin.list(1),
    check: async () => undefined,
  },
  {
    name: 'create-key',
    baseline: 200,
    org: 1,
    setup: async () => (await admin.list(1)).body.data.length as number,
    run: () => admin.create({ org_id: 1, name: 'fault test' }),
    check: async (before: number, { reply }) => {
      const after = (await admin.list(1)).body.data.length as number;
      if (reply.status === 200) {
        expect(after).toBe(before + 1);
        expect((await api({ raw: reply.body.data.key } as TestKey).create({ game_id: 101 })).status).toBe(200);
      } else {
        // At most one record nobody holds (the write applied, every answer lost); the audit says it failed.
        expect(after - before).toBeLessThanOrEqual(1);
      }
    },
  },
  {
    name: 'update-key (revoke)',
    baseline: 200,
    org: 1,
    setup: async () => (await admin.create({ org_id: 1, name: 'to revoke' })).body.data,
    run: (created) => admin.update({ id: created.id, org_id: 1, is_active: false }),
    check: async (created, { reply }) => {
      const works = (await api({ raw: created.key } as TestKey).create({ game_id: 101 })).status;
      if (reply.status === 200) expect(works).toBe(401);
      else expect([200, 401]).toContain(works);
    },
  },
  {
    name: 'delete-key',
    baseline: 200,
    org: 1,
    setup: async () => (await admin.create({ org_id: 1, name: 'to delete' })).body.data,
    run: (created) => admin.remove(created.id, 1),
    check: async (created, { reply }) => {
      const listed = ((await admin.list(1)).body.data as { id: number }[]).some((k) => k.id === created.id);
      if (reply.status === 200) expect(listed).toBe(false);
    },
  },
  {
    name: 'audit-log',
    baseline: 200,
    org: 1,
    setup: async () => undefined,
    run: () => admin.audit({ org_id: 1, limit: 5 }),
    check: async () => undefined,
  },
  {
    name: 'play page',
    baseline: 200,
    org: 1,
    setup: async () => ({ token: await api(await key()).mint() }),
    run: ({ token }) => stack.request(`/play/game/101?session_token=${token}`),
    check: async ({ token }, { reply }) => {
      expect(reply.headers.get('content-type')).toMatch(/^text\/html/);
      expect((await stored(token))?.status).toBe('active');
    },
  },
  {
    name: 'play session (cookie exchange)',
    baseline: 204,
    org: 1,
    setup: async () => {
      const token = await api(await key()).mint();
      const consumed = await api(fuzzless).consume({ token });
      sessionIds.push(consumed.body.data.session_id);
      return { token, sessionId: consumed.body.data.session_id };
    },
    run: ({ token, sessionId }) =>
      stack.request('/play/session', {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ token, session_id: sessionId }),
      }),
    check: async (_state, { reply }) => {
      if (reply.status === 204) expect(reply.headers.get('set-cookie')).toMatch(/^play_game_101=/);
    },
  },
  {
    name: 'MCP tools/call create_session',
    baseline: 200,
    org: 1,
    setup: () => key({ mcp_scopes: ['mcp:sessions:write'] }),
    run: (k: TestKey) =>
      postMcp(
        stack,
        { jsonrpc: '2.0', id: 7, method: 'tools/call', params: { name: 'create_session', arguments: { game_id: 101 } } },
        { 'x-api-key': k.raw },
      ),
    check: async (k: TestKey, { reply }) => {
      const ok = reply.status === 200 && !reply.body.result?.isError;
      await countedTokens(k, ok ? 1 : 0, ok);
      if (ok) expect((await stored(reply.body.result.structuredContent.token))?.status).toBe('active');
    },
  },
  {
    name: 'MCP initialize',
    baseline: 200,
    org: 1,
    setup: () => key({ mcp_scopes: ['mcp:games:read'] }),
    run: (k: TestKey) => postMcp(stack, INITIALIZE, { 'x-api-key': k.raw }),
    check: async (k: TestKey, { reply }) => {
      const counts = await windowCounts(stack, k.record);
      // Counted once whatever the outcome (a lost answer of the increment leaves it counted once).
      if (reply.status === 200) expect(counts).toEqual({ minute: 1, day: 1 });
      expect(counts.minute ?? 0).toBeLessThanOrEqual(1);
    },
  },
];

/** Consume and validate take no credential. */
const fuzzless = { raw: '' } as TestKey;

const KINDS: { kind: FaultKind; persistent: boolean }[] = [
  { kind: 'throttle', persistent: false },
  { kind: 'throttle', persistent: true },
  { kind: 'network', persistent: false },
  { kind: 'network', persistent: true },
  { kind: 'timeout', persistent: false },
  { kind: 'timeout', persistent: true },
  { kind: 'conditional', persistent: true },
];

/** What every faulted answer must be, and what the audit may say about it. */
async function checkAnswer(
  op: Operation<unknown>,
  kind: FaultKind,
  persistent: boolean,
  reply: Reply,
  outcome: FaultOutcome,
): Promise<void> {
  const target = outcome.target!;
  const label = `${op.name}: ${persistent ? 'every attempt of' : 'first attempt of'} call ${outcome.calls.indexOf(target)} (${target.command} ${target.table}) ${kind}`;
  const recoverable = !persistent && (kind === 'throttle' || (kind !== 'conditional' && target.retrySafe));
  expect({ label, ok: reply.status === op.baseline || reply.status >= 500 }).toEqual({ label, ok: true });
  if (recoverable) {
    expect({ label, status: reply.status }).toEqual({ label, status: op.baseline });
    expect(outcome.attempts).toBe(2);
    figures.recoveredByRetry++;
  }
  if (reply.status >= 500) {
    if (kind === 'throttle') {
      expect({ label, status: reply.status }).toEqual({ label, status: 503 });
      expect(Number(reply.headers.get('retry-after'))).toBeGreaterThan(0);
    }
    if (typeof reply.body === 'object')
      expect(reply.body).toEqual({ success: false, error: expect.any(String), code: expect.any(String), request_id: expect.any(String) });
    else expect(reply.headers.get('content-type')).toMatch(/^text\/html/);
  }
  // The audit never claims another outcome than the client's. Only when the correction of the
  // optimistic record itself failed on every attempt may it keep its 200, and then the log says so.
  const requestId = reply.headers.get('x-request-id');
  const audit = await auditOfRequest(stack, op.org, requestId);
  const correctionFailed = persistent && target.command === 'PutItem' && target.table === 'audit' && reply.status !== 200;
  if (correctionFailed && audit.some((r) => r.status !== reply.status)) {
    expect(capturedLogs.join('')).toContain(`audit record of request ${requestId} must say ${reply.status}`);
    figures.auditCorrectionsLogged++;
    return;
  }
  expect({ label, statuses: audit.map((r) => r.status) }).toEqual({ label, statuses: audit.map(() => reply.status) });
}

/** Count a targeted fault into the figures. */
function counted(outcome: FaultOutcome): FaultOutcome {
  figures.faultsInjected += outcome.failedAttempts;
  figures.faultRequests++;
  if (outcome.attempts > outcome.failedAttempts) figures.recoveredByRetry++;
  return outcome;
}

describe('the retry policy', () => {
  const consumeWrite = (c: CallRecord) => c.command === 'UpdateItem' && c.table === 'tokens';
  const minuteHit = (c: CallRecord) => c.command === 'UpdateItem' && c.table === 'counters';

  test('a consume whose answer was lost is retried and finds its own session id: 200, not a false 410', async () => {
    const token = await api(await key()).mint();
    faults.arm({ kind: 'timeout', call: consumeWrite, persistent: false });
    const reply = await api(fuzzless).consume({ token });
    const outcome = counted(faults.disarm());
    expect(outcome).toMatchObject({ failedAttempts: 1, attempts: 2 });
    expect(reply.status).toBe(200);
    sessionIds.push(reply.body.data.session_id);
    expect(await stored(token)).toMatchObject({ status: 'consumed', session_id: reply.body.data.session_id });
    expect((await api(fuzzless).consume({ token })).status).toBe(410);
  });

  test('a counter increment whose answer was lost is not repeated: the call fails, counted once, not twice', async () => {
    roomInMinute(stack);
    const k = await key();
    faults.arm({ kind: 'timeout', call: minuteHit, persistent: false });
    const reply = await api(k).create({ game_id: 101 });
    expect(counted(faults.disarm())).toMatchObject({ failedAttempts: 1, attempts: 1 });
    expect(reply.status).toBe(500);
    expect(await windowCounts(stack, k.record)).toEqual({ minute: 1, day: 1 });
    expect(await tokensOfKey(stack, k.record.id)).toEqual([]);
  });

  test('a throttled counter increment was not applied, so it is retried: 200, counted once', async () => {
    roomInMinute(stack);
    const k = await key();
    faults.arm({ kind: 'throttle', call: minuteHit, persistent: false });
    const reply = await api(k).create({ game_id: 101 });
    expect(counted(faults.disarm())).toMatchObject({ failedAttempts: 1, attempts: 2 });
    expect(reply.status).toBe(200);
    expect(await windowCounts(stack, k.record)).toEqual({ minute: 1, day: 1 });
  });

  test('a sharded key whose shard stays throttled counts the call in another shard: 200, counted once', async () => {
    roomInMinute(stack);
    const k = await key(); // 100,000 a minute: 4 counter shards
    faults.arm({ kind: 'throttle', call: minuteHit, persistent: true });
    const reply = await api(k).create({ game_id: 101 });
    expect(counted(faults.disarm())).toMatchObject({ failedAttempts: 3 });
    expect(reply.status).toBe(200);
    expect(await windowCounts(stack, k.record)).toEqual({ minute: 1, day: 1 });
  });

  test('throttling that outlasts the retries is a 503 with Retry-After, after exactly three attempts', async () => {
    // One counter item (60 a minute): nowhere else to count the call.
    const k = await key({ rate_limit_per_minute: 60, rate_limit_per_day: 10_000 });
    faults.arm({ kind: 'throttle', call: minuteHit, persistent: true });
    const reply = await api(k).create({ game_id: 101 });
    expect(counted(faults.disarm())).toMatchObject({ failedAttempts: 3, attempts: 3 });
    expect(reply.status).toBe(503);
    expect(reply.body).toEqual({
      success: false,
      error: 'Service busy, retry shortly',
      code: expect.any(String),
      request_id: expect.any(String),
    });
    expect(reply.headers.get('retry-after')).toBe('1');
    expect(await tokensOfKey(stack, k.record.id)).toEqual([]);
  });
});

describe('fault injection at the store boundary', () => {
  test.each(operations.map((op) => [op.name, op] as const))(
    '%s: every call, every fault kind',
    async (_name, op) => {
      let injectedHere = 0;
      for (const { kind, persistent } of KINDS) {
        for (let call = 0; ; call++) {
          roomInMinute(stack); // setup, run and check in one minute window
          const state = await op.setup();
          faults.arm({ kind, call, persistent });
          const reply = await op.run(state);
          const outcome = faults.disarm();
          if (outcome.calls.length <= call) break;
          // Not applicable to that call (a conditional failure where one can happen), or a timeout of a
          // call whose answer was an error anyway: nothing was injected.
          if (!outcome.target || outcome.failedAttempts === 0) continue;
          figures.faultsInjected += outcome.failedAttempts;
          figures.faultRequests++;
          injectedHere++;
          await checkAnswer(op, kind, persistent, reply, outcome);
          await op.check(state, { reply, outcome, kind });
        }
      }
      expect(injectedHere).toBeGreaterThan(0);
    },
    120_000,
  );

  test('no session id was handed out twice', () => {
    expect(sessionIds.length).toBeGreaterThan(10);
    expect(new Set(sessionIds).size).toBe(sessionIds.length);
  });
});
