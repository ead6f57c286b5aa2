/**
 * Fault injection at the store boundary, for the session operations (create-session — accepted,
 * out of scope and rate-limited —, validate, consume — fresh and used —, revoke), the play page,
 * the page script's play session (consume and cookie in one request) and MCP (`initialize`, `tools/call create_session`): each DynamoDB call
 * they make fails in turn, every fault kind, on its first attempt only and on every attempt
 * (`test/support/fault-matrix.ts`). After each faulted request the tables are read back.
 * Invariants: the client gets the answer it would have had, or a 5xx envelope (503 with Retry-After
 * when throttled); no token exists that was not counted against its key; a consumed token never
 * reads as active, and a failed consume that did not apply leaves the token usable; no session id
 * is handed out twice; the audit never claims an outcome other than the one the client was given.
 */
import { describe, expect, test } from '@jest/globals';
import { fuzzless, useFaultRun, type Operation } from '../support/fault-matrix.js';
import { tokensOfKey, windowCounts, type TestKey } from '../support/keys.js';
import { INITIALIZE, postMcp } from '../support/mcp.js';

const run = useFaultRun('faults-sessions');
const { key, api, stored, countedTokens, sessionIds } = run;

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
      expect(await tokensOfKey(run.stack, k.record.id)).toHaveLength(orphan ? 2 : 1);
      const counts = await windowCounts(run.stack, k.record);
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
    name: 'play page',
    baseline: 200,
    org: 1,
    setup: async () => ({ token: await api(await key()).mint() }),
    run: ({ token }) => run.stack.request(`/play/game/101?session_token=${token}`),
    check: async ({ token }, { reply }) => {
      expect(reply.headers.get('content-type')).toMatch(/^text\/html/);
      expect((await stored(token))?.status).toBe('active');
    },
  },
  {
    name: 'play session (consume and cookie, one request)',
    baseline: 200,
    org: 1,
    setup: async () => ({ token: await api(await key()).mint() }),
    run: ({ token }) =>
      run.stack.request('/play/session', {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ token }),
      }),
    check: async ({ token }, { reply }) => {
      const item = await stored(token);
      if (reply.status === 200) {
        // The cookie comes with the consumption, bound to the session id the token now holds.
        sessionIds.push(reply.body.data.session_id);
        expect(item).toMatchObject({ status: 'consumed', session_id: reply.body.data.session_id });
        const pass = /^play_game_101=([A-Za-z0-9_-]+)\./.exec(reply.headers.get('set-cookie') ?? '')?.[1];
        expect(JSON.parse(Buffer.from(pass!, 'base64url').toString('utf8'))).toMatchObject({ sid: reply.body.data.session_id });
      } else {
        expect(reply.headers.get('set-cookie')).toBeNull();
      }
      // A consumed token never reads as active; one the failure left active is still the player's to start.
      expect((await api(fuzzless).validate(token)).body.data.status).toBe(item?.status);
      const again = await api(fuzzless).consume({ token });
      expect(again.status).toBe(item?.status === 'active' ? 200 : 410);
      if (again.status === 200) sessionIds.push(again.body.data.session_id);
    },
  },
  {
    name: 'MCP tools/call create_session',
    baseline: 200,
    org: 1,
    setup: () => key({ mcp_scopes: ['mcp:sessions:write'] }),
    run: (k: TestKey) =>
      postMcp(
        run.stack,
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
    run: (k: TestKey) => postMcp(run.stack, INITIALIZE, { 'x-api-key': k.raw }),
    check: async (k: TestKey, { reply }) => {
      const counts = await windowCounts(run.stack, k.record);
      // Counted once whatever the outcome (a lost answer of the increment leaves it counted once).
      if (reply.status === 200) expect(counts).toEqual({ minute: 1, day: 1 });
      expect(counts.minute ?? 0).toBeLessThanOrEqual(1);
    },
  },
];

describe('fault injection at the store boundary', () => {
  test.each(operations.map((op) => [op.name, op] as const))('%s: every call, every fault kind', (_name, op) => run.matrix(op), 120_000);

  test('no session id was handed out twice', () => {
    expect(sessionIds.length).toBeGreaterThan(10);
    expect(new Set(sessionIds).size).toBe(sessionIds.length);
  });
});
