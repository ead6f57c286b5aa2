/**
 * create-session ahead of its key's read: a key this container has read valid mints in
 * one stage, its count, token and audit record written beside the key's read. What must hold
 * whatever the read then says, under 50 calls at once, on the configured backend: never over a
 * window (limit changes included), a revoked key refused on its very next call with nothing left
 * behind, no speculative token readable by anyone, and one correct audit record per call.
 */
import { afterAll, beforeEach, expect, test } from '@jest/globals';
import type { ApiKeyRecord } from '../../shared/keys/index.js';
import { describeWithStack } from '../support/describe-with-stack.js';
import { auditOfKey, createTestKey, putKeyRecord, startOfNextMinute, tokensOfKey, windowCounts, type TestKey } from '../support/keys.js';
import type { Stack } from '../support/local-stack.js';
import { RoundTripRecorder } from '../support/round-trips.js';
import { sessionsApi } from '../support/sessions-api.js';
import { postMcp } from '../support/mcp.js';

/** Calls at once. */
const AT_ONCE = 50;

/** `n` create-session calls of a key at once; their statuses, sorted, and the tokens minted. */
async function createsAtOnce(stack: Stack, key: TestKey, n = AT_ONCE, headers: (i: number) => Record<string, string> = () => ({})) {
  const replies = await Promise.all(
    Array.from({ length: n }, (_, i) => stack.post('create-session', { game_id: 101 }, { 'x-api-key': key.raw, ...headers(i) })),
  );
  return {
    statuses: replies.map((r) => r.status).sort((a, b) => a - b),
    tokens: replies.filter((r) => r.status === 200).map((r) => (r.body as { data: { token: string } }).data.token),
  };
}

/** How many of `statuses` are `status`. */
const counted = (statuses: readonly number[], status: number) => statuses.filter((s) => s === status).length;

/** The statuses of a key's create-session audit records, sorted (its admin changes are audited with it too). */
async function auditStatuses(stack: Stack, key: TestKey): Promise<number[]> {
  const records = await auditOfKey(stack, key.record.id);
  return records
    .filter((r) => r.action === 'create-session')
    .map((r) => r.status)
    .sort((a, b) => a - b);
}

describeWithStack('create-session ahead of its key read', ({ stack, admin }) => {
  const recorder = new RoundTripRecorder();
  let detach: (() => void) | undefined;
  beforeEach(() => {
    detach ??= recorder.attach(stack.services.client);
    startOfNextMinute(stack);
  });

  /** A key of these limits, read valid by this container (one call made). */
  async function warmKey(limits: Pick<ApiKeyRecord, 'rate_limit_per_minute' | 'rate_limit_per_day'>): Promise<TestKey> {
    const key = await createTestKey(stack, limits);
    expect((await stack.post('create-session', { game_id: 101 }, { 'x-api-key': key.raw })).status).toBe(200);
    return key;
  }

  test('50 at once over a minute limit of 20: exactly the limit passes, one token and one audit record per call that passed', async () => {
    const key = await warmKey({ rate_limit_per_minute: 21, rate_limit_per_day: 1_000 });
    const { statuses, tokens } = await createsAtOnce(stack, key);
    expect(counted(statuses, 200)).toBe(20);
    expect(counted(statuses, 429)).toBe(30);
    expect(await windowCounts(stack, key.record)).toEqual({ minute: 21, day: 21 });
    // The 30 refused calls' speculative tokens are gone; the 20 minted (and the warm-up's) stay.
    const stored = (await tokensOfKey(stack, key.record.id)).map((t) => t.token);
    expect(stored).toHaveLength(21);
    expect(stored).toEqual(expect.arrayContaining(tokens));
    // Each call that passed has its record; refusals are audited too, except the 429s a container
    // answers from its memory of full shards (tallied for the usage report instead: docs/architecture.md).
    const audited = await auditStatuses(stack, key);
    expect(counted(audited, 200)).toBe(21);
    expect(audited.filter((s) => s !== 200 && s !== 429)).toEqual([]);
  });

  test('a key revoked since this container read it: refused on its very next calls (50 at once), no token, no count left behind, each call audited 401', async () => {
    const key = await warmKey({ rate_limit_per_minute: 1_000, rate_limit_per_day: 10_000 });
    await putKeyRecord(stack, { ...key.record, is_active: false, updated_at: new Date(stack.clock.now()).toISOString() });
    const { value } = await recorder.measure(() => createsAtOnce(stack, key));
    expect(value.statuses).toEqual(Array(AT_ONCE).fill(401));
    expect(await tokensOfKey(stack, key.record.id)).toHaveLength(1);
    expect(await windowCounts(stack, key.record)).toEqual({ minute: 1, day: 1 });
    // A call that went out ahead (the container had read the key valid) has its record rewritten with
    // the refusal; one that came after the first refusal made the container forget the key wrote none.
    const audited = await auditStatuses(stack, key);
    expect(audited[0]).toBe(200);
    expect(audited.length).toBeGreaterThan(1);
    expect(audited.slice(1).every((s) => s === 401)).toBe(true);
    // The container forgot the key: its next call waits for the key's read and writes nothing. Beside
    // the key's read goes the game's when this container's cache of it has expired (a read that needs
    // no key; the test's clock jumps to the next minute before each test, so that is not known here).
    const next = await recorder.measure(() => stack.post('create-session', { game_id: 101 }, { 'x-api-key': key.raw }));
    expect(next.value.status).toBe(401);
    const besideGameRead = next.calls.filter((c) => !(c.action === 'GetItem' && c.table === 'catalog'));
    expect(besideGameRead.map((c) => `${c.action} ${c.table}`)).toEqual(['GetItem keys']);
  });

  test('no token written ahead is readable: validate-session of each one deleted again answers 404', async () => {
    const key = await warmKey({ rate_limit_per_minute: 1_000, rate_limit_per_day: 10_000 });
    await putKeyRecord(stack, { ...key.record, is_active: false, updated_at: new Date(stack.clock.now()).toISOString() });
    const { calls } = await recorder.measure(() => createsAtOnce(stack, key, 10));
    const speculative = calls
      .filter((c) => c.action === 'PutItem' && c.table === 'tokens')
      .map((c) => (c.input.Item as { token: string }).token);
    expect(speculative).toHaveLength(10);
    const partner = await createTestKey(stack);
    const api = sessionsApi(stack, () => partner.raw);
    for (const token of speculative) expect((await api.validate(token)).status).toBe(404);
  });

  test('limits lowered since this container read the key: 50 at once never pass the new limit (the calls finish on the slow path)', async () => {
    const key = await warmKey({ rate_limit_per_minute: 1_000, rate_limit_per_day: 10_000 });
    for (let i = 0; i < 9; i++) expect((await stack.post('create-session', { game_id: 101 }, { 'x-api-key': key.raw })).status).toBe(200);
    expect((await admin.update({ id: key.record.id, org_id: 1, rate_limit_per_minute: 15 })).status).toBe(200);
    const { statuses } = await createsAtOnce(stack, key);
    // 10 made before the change count against the new 15: 5 more at most.
    expect(counted(statuses, 200)).toBe(5);
    expect(counted(statuses, 429)).toBe(45);
    expect(await tokensOfKey(stack, key.record.id)).toHaveLength(15);
    const statusesAudited = await auditStatuses(stack, key);
    expect(counted(statusesAudited, 200)).toBe(15);
    expect(counted(statusesAudited, 429)).toBe(45);
    expect(statusesAudited).toHaveLength(60);
  });

  test('limits raised after the minute was used up: the container’s memory of the full window gives way to the key as read (50 at once pass)', async () => {
    const key = await warmKey({ rate_limit_per_minute: 2, rate_limit_per_day: 10_000 });
    expect((await stack.post('create-session', { game_id: 101 }, { 'x-api-key': key.raw })).status).toBe(200);
    expect((await stack.post('create-session', { game_id: 101 }, { 'x-api-key': key.raw })).status).toBe(429);
    expect((await admin.update({ id: key.record.id, org_id: 1, rate_limit_per_minute: 100 })).status).toBe(200);
    const { statuses } = await createsAtOnce(stack, key);
    expect(statuses).toEqual(Array(AT_ONCE).fill(200));
    expect(await tokensOfKey(stack, key.record.id)).toHaveLength(2 + AT_ONCE);
  });

  test('an Idempotency-Key repeated: the replay takes back what it wrote ahead (no second token, count or record); another body is 422, counted, its token gone', async () => {
    const key = await warmKey({ rate_limit_per_minute: 1_000, rate_limit_per_day: 10_000 });
    const headers = { 'x-api-key': key.raw, 'idempotency-key': `ahead-${Math.random()}` };
    const first = await stack.post('create-session', { game_id: 101 }, headers);
    expect(first.status).toBe(200);
    const replays = await Promise.all(Array.from({ length: 10 }, () => stack.post('create-session', { game_id: 101 }, headers)));
    for (const replay of replays) {
      expect(replay.status).toBe(200);
      expect(replay.headers.get('idempotent-replayed')).toBe('true');
      expect(replay.body).toEqual(first.body);
    }
    expect(await tokensOfKey(stack, key.record.id)).toHaveLength(2);
    expect(await windowCounts(stack, key.record)).toEqual({ minute: 2, day: 2 });
    expect(await auditStatuses(stack, key)).toEqual([200, 200]);

    const other = await stack.post('create-session', { game_id: 102 }, headers);
    expect(other.status).toBe(422);
    expect((await tokensOfKey(stack, key.record.id)).filter((t) => t.game_id === 102)).toEqual([]);
    expect(await windowCounts(stack, key.record)).toEqual({ minute: 3, day: 3 });
    expect(await auditStatuses(stack, key)).toEqual([200, 200, 422]);
  });

  test('an Idempotency-Key reused with a body the key may not mint: the claim’s 422 wins over the operation’s 403, as on the slow path (REST and MCP)', async () => {
    const key = await createTestKey(stack, {
      rate_limit_per_minute: 1_000,
      rate_limit_per_day: 10_000,
      allowed_game_ids: [101],
      mcp_scopes: ['mcp:sessions:write'],
    });
    const headers = { 'x-api-key': key.raw, 'idempotency-key': `ahead-scope-${Math.random()}` };
    expect((await stack.post('create-session', { game_id: 101 }, headers)).status).toBe(200);
    const other = await stack.post('create-session', { game_id: 102 }, headers);
    expect(other.status).toBe(422);
    expect(await auditStatuses(stack, key)).toEqual([200, 422]);

    const mcp = (game: number) =>
      postMcp(
        stack,
        { jsonrpc: '2.0', id: game, method: 'tools/call', params: { name: 'create_session', arguments: { game_id: game } } },
        { ...headers, 'idempotency-key': `${headers['idempotency-key']}-mcp` },
      );
    expect((await mcp(101)).status).toBe(200);
    // An HTTP 422 (the request's refusal), not a tool error answered with 200.
    expect((await mcp(102)).status).toBe(422);
    expect(await tokensOfKey(stack, key.record.id)).toHaveLength(2);
  });

  test('a key whose allow-list changed since this container read it: the call is served again with the key as read (403, counted, no token)', async () => {
    const key = await warmKey({ rate_limit_per_minute: 1_000, rate_limit_per_day: 10_000 });
    expect((await admin.update({ id: key.record.id, org_id: 1, allowed_game_ids: [102] })).status).toBe(200);
    const reply = await stack.post('create-session', { game_id: 101 }, { 'x-api-key': key.raw });
    expect(reply.status).toBe(403);
    expect(await tokensOfKey(stack, key.record.id)).toHaveLength(1);
    expect(await windowCounts(stack, key.record)).toEqual({ minute: 2, day: 2 });
    expect(await auditStatuses(stack, key)).toEqual([200, 403]);
  });

  afterAll(() => detach?.());
});
