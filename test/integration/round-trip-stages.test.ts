/**
 * How many sequential DynamoDB round trips each operation makes on the warm path (not how long they
 * take: speed lives in `npm run bench`). A change that makes a call wait for another one it need not
 * wait for fails here. Each operation is called once to warm up (the session-id block, the key's
 * `last_used_at` stamp, the catalog cache), then once measured.
 */
import { afterAll, beforeAll, describe, expect, test } from '@jest/globals';
import { configuredBackend } from '../../infra/local/dynamo.js';
import { PLAYABLE_CACHE_MS } from '../../shared/sessions/playable-cache.js';
import { adminApi, type AdminApi } from '../support/admin-api.js';
import { createTestKey, startOfNextMinute, UNLIMITED, type TestKey } from '../support/keys.js';
import { startStack, type Stack } from '../support/local-stack.js';
import { describeStages, RoundTripRecorder, stageCount, type RoundTrip } from '../support/round-trips.js';
import { sessionsApi, type Reply } from '../support/sessions-api.js';

let stack: Stack;
let api: ReturnType<typeof sessionsApi>;
let admin: AdminApi;
let partner: TestKey;
const recorder = new RoundTripRecorder();

beforeAll(async () => {
  // Its recorder sees every call of the service's client: the workers' are not this request's.
  stack = await startStack({ workers: false });
  recorder.attach(stack.services.client);
  partner = await createTestKey(stack, UNLIMITED);
  api = sessionsApi(stack, () => partner.raw);
  admin = adminApi(stack);
});
afterAll(() => stack.stop());

/**
 * Past every cached game's 60 s, then to the start of a minute, so that a refill of the game cache
 * and the key's use stamp (once per key and minute) land in the next call, whatever ran before.
 */
function freshMinute(): void {
  stack.clock.advance(PLAYABLE_CACHE_MS + 1_000);
  startOfNextMinute(stack);
}

/** Call twice; measure the second call. Both in a fresh minute ({@link freshMinute}). */
async function warm(call: () => Promise<Reply>): Promise<{ status: number; calls: RoundTrip[] }> {
  freshMinute();
  const first = await call();
  expect(first.status).toBeLessThan(300);
  const { value, calls } = await recorder.measure(call);
  return { status: value.status, calls };
}

/** The stage count with the calls spelled out, so a failure says what changed. */
const stages = (calls: RoundTrip[]) => ({ stages: stageCount(calls), calls: describeStages(calls) });

describe('round-trip stages on the warm path', () => {
  test('create-session of a key this container read valid: the key read beside the count (both windows in one write), token and audit (1; the game is cached)', async () => {
    const { status, calls } = await warm(() => api.create({ game_id: 101 }));
    expect(status).toBe(200);
    expect(stages(calls)).toEqual({
      stages: 1,
      calls: 'GetItem keys + UpdateItem counters + PutItem tokens + PutItem audit',
    });
  });

  test('create-session of a key this container has not read yet: the key read, then the count, token and audit (2: no write before a key proves valid)', async () => {
    const fresh = await createTestKey(stack, UNLIMITED);
    freshMinute();
    // A first call in this minute for the game's cache and the use stamp of another key, so that only the key is new.
    expect((await api.create({ game_id: 101 })).status).toBe(200);
    const { value, calls } = await recorder.measure(() => api.create({ game_id: 101 }, fresh.raw));
    expect(value.status).toBe(200);
    expect(stages(calls)).toEqual({
      stages: 2,
      calls: 'GetItem keys | UpdateItem counters + PutItem tokens + PutItem audit + UpdateItem keys',
    });
  });

  test('create-session with an Idempotency-Key: the claim beside the key read, the count, token and audit, then the answer stored (2)', async () => {
    const { status, calls } = await warm(() =>
      stack.post('create-session', { game_id: 101 }, { 'x-api-key': partner.raw, 'idempotency-key': `stages-${Math.random()}` }),
    );
    expect(status).toBe(200);
    expect(stages(calls)).toEqual({
      stages: 2,
      calls: 'GetItem keys + PutItem idempotency + UpdateItem counters + PutItem tokens + PutItem audit | UpdateItem idempotency',
    });
  });

  test('create-session on the day of a limit change: the warm path is the same 1 stage once the new counter layout is made', async () => {
    const changed = await createTestKey(stack, { rate_limit_per_minute: 1_000 });
    expect((await admin.update({ id: changed.record.id, org_id: 1, rate_limit_per_minute: 100_000 })).status).toBe(200);
    // The first call after the change hands over: the layout read (beside the token and audit
    // writes), the old layout's items sealed, the new layout stored, then the count (5).
    startOfNextMinute(stack);
    const handover = await recorder.measure(() => api.create({ game_id: 101 }, changed.raw));
    expect(handover.value.status).toBe(200);
    expect(stageCount(handover.calls)).toBe(5);
    const { status, calls } = await warm(() => api.create({ game_id: 101 }, changed.raw));
    expect(status).toBe(200);
    // (The game's cache may refill beside the key read: the first call took the hand-over's time.)
    expect(stageCount(calls)).toBe(1);
    expect(calls.filter((c) => c.table === 'counters').map((c) => c.action)).toEqual(['UpdateItem']);
  });

  test('validate-session: one read (1)', async () => {
    const token = await api.mint();
    const { status, calls } = await warm(() => api.validate(token));
    expect(status).toBe(200);
    expect(stages(calls)).toEqual({ stages: 1, calls: 'GetItem tokens' });
  });

  test('consume-session: one conditional write (1)', async () => {
    const tokens = [await api.mint(), await api.mint()];
    const { status, calls } = await warm(() => api.consume({ token: tokens.shift() }));
    expect(status).toBe(200);
    expect(stages(calls)).toEqual({ stages: 1, calls: 'UpdateItem tokens' });
  });

  test('revoke-session: the key read, the count with the audit record, then the revoke (3: a token is shared, so the call is counted before it is touched)', async () => {
    const tokens = [await api.mint(), await api.mint()];
    const { status, calls } = await warm(() => api.revoke({ token: tokens.shift() }));
    expect(status).toBe(200);
    expect(stages(calls)).toEqual({
      stages: 3,
      calls: 'GetItem keys | UpdateItem counters + PutItem audit | UpdateItem tokens',
    });
  });

  test('revoke-session with an allow-listed key: the token’s read (its game or stream) beside the count, so still 3 stages', async () => {
    const restricted = await createTestKey(stack, { ...UNLIMITED, allowed_game_ids: [101] });
    const tokens = [await api.mint({ game_id: 101 }), await api.mint({ game_id: 101 })];
    const { status, calls } = await warm(() => api.revoke({ token: tokens.shift() }, restricted.raw));
    expect(status).toBe(200);
    expect(stages(calls)).toEqual({
      stages: 3,
      calls: 'GetItem keys | GetItem tokens + UpdateItem counters + PutItem audit | UpdateItem tokens',
    });
  });

  // Key management: membership, org and the first read together, then the write with its audit record.
  test.each([
    ['list-keys', 2, () => admin.list(1)],
    // The key is written in one transaction with a check of the org's tier (shared/keys/org-tiers.ts).
    ['create-key', 2, () => admin.create({ org_id: 1, name: 'stages' })],
    ['update-key', 2, () => admin.update({ id: partner.record.id, org_id: 1, name: `stages ${Math.random()}` })],
    ['audit-log', 1, () => admin.audit({ org_id: 1, limit: 5 })],
    // Membership, org and the game together, then the change with its audit record (as update-key).
    ['update-game', 2, () => admin.updatePlayable('game', { org_id: 1, game_id: 102, name: `stages ${Math.random()}` })],
    // Membership, org and both lists (the catalog's by_org index) together.
    ['list-games', 1, () => admin.listGames(1)],
    // The membership first (a report is not read for outsiders), the day's audit records, then the tokens.
    [
      'usage',
      3,
      () =>
        admin.usage({
          org_id: 1,
          from: new Date(stack.clock.now()).toISOString().slice(0, 10),
          to: new Date(stack.clock.now()).toISOString().slice(0, 10),
        }),
    ],
  ])('%s: %d', async (_name, expected, call) => {
    const { status, calls } = await warm(call);
    expect(status).toBe(200);
    expect(stageCount(calls)).toBe(expected);
  });

  test('list-orgs: the subject’s memberships (the by_org index), then their orgs in one batch (2)', async () => {
    const { status, calls } = await warm(() => admin.listOrgs());
    expect(status).toBe(200);
    expect(stages(calls)).toEqual({ stages: 2, calls: 'Query catalog | BatchGetItem catalog' });
  });

  test('delete-key: 2', async () => {
    const ids = [
      (await admin.create({ org_id: 1, name: 'gone' })).body.data.id,
      (await admin.create({ org_id: 1, name: 'gone' })).body.data.id,
    ];
    const { status, calls } = await warm(() => admin.remove(ids.shift(), 1));
    expect(status).toBe(200);
    expect(stageCount(calls)).toBe(2);
  });

  test('play page: the token read (the game is cached for 5 s), one stage (1)', async () => {
    const token = await api.mint();
    const { status, calls } = await warm(() => stack.request(`/play/game/101?session_token=${token}`));
    expect(status).toBe(200);
    expect(stageCount(calls)).toBe(1);
  });

  test('play session (the page script’s one POST): consume and cookie in one conditional write (1)', async () => {
    // Minted before: only the POST is measured.
    const tokens = [await api.mint(), await api.mint()];
    const start = () =>
      stack.request('/play/session', {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ token: tokens.shift() }),
      });
    const { status, calls } = await warm(start);
    expect(status).toBe(200);
    expect(stages(calls)).toEqual({ stages: 1, calls: 'UpdateItem tokens' });
  });
});

/**
 * Refusals whose reason the service must learn: DynamoDB returns the refused item with the refusal
 * (`ReturnValuesOnConditionCheckFailure: ALL_OLD`), and so do the local backends (dynalite through
 * `infra/local/dynalite-refusals.ts`): no item is read again. The describe's name says which backend ran.
 */
describe(`round-trip stages of refusals, on ${configuredBackend().kind}`, () => {
  test('consume-session of a consumed token: the refused write alone, on every backend (its reason needs no read: 1)', async () => {
    const refusedConsume = async () => {
      const token = await api.mint();
      expect((await api.consume({ token })).status).toBe(200);
      return recorder.measure(() => api.consume({ token }));
    };
    await refusedConsume();
    const { value, calls } = await refusedConsume();
    expect(value.status).toBe(410);
    expect(stages(calls)).toEqual({ stages: 1, calls: 'UpdateItem tokens' });
  });

  test('create-session replayed (an idempotency claim that exists): the refused claim (its record returned with it) beside the key read and the writes ahead, which are taken back (2)', async () => {
    const replay = async () => {
      const headers = { 'x-api-key': partner.raw, 'idempotency-key': `stages-${Math.random()}` };
      expect((await stack.post('create-session', { game_id: 101 }, headers)).status).toBe(200);
      return recorder.measure(() => stack.post('create-session', { game_id: 101 }, headers));
    };
    await replay();
    const { value, calls } = await replay();
    expect(value.status).toBe(200);
    expect(value.headers.get('idempotent-replayed')).toBe('true');
    expect(stages(calls)).toEqual({
      stages: 2,
      calls:
        'GetItem keys + PutItem idempotency + UpdateItem counters + PutItem tokens + PutItem audit | ' +
        'DeleteItem tokens + UpdateItem counters + DeleteItem audit',
    });
  });

  test('revoke-session of a consumed token: the key read, the count with the audit record, the refused revoke (the token returned with it), its audit correction', async () => {
    const refusedRevoke = async () => {
      const token = await api.mint();
      expect((await api.consume({ token })).status).toBe(200);
      return recorder.measure(() => api.revoke({ token }));
    };
    await refusedRevoke();
    const { value, calls } = await refusedRevoke();
    expect(value.status).toBe(410);
    expect(stages(calls)).toEqual({
      stages: 4,
      calls: 'GetItem keys | UpdateItem counters + PutItem audit | UpdateItem tokens | PutItem audit',
    });
  });

  test('create-session over the minute limit: the key read beside the refused count (the counter returned with it), token and audit, then the undo (2)', async () => {
    const limited = await createTestKey(stack, { rate_limit_per_minute: 1 });
    freshMinute();
    expect((await api.create({ game_id: 101 }, limited.raw)).status).toBe(200);
    const { value, calls } = await recorder.measure(() => api.create({ game_id: 101 }, limited.raw));
    expect(value.status).toBe(429);
    expect(stageCount(calls)).toBe(2);
    // The refused count (no read of the counter), and beside the undo the window's notice
    // (key.rate_limited: the first refusal this container learns of the window, not a stage of its own).
    const counterCalls = calls.filter((c) => c.table === 'counters').map((c) => c.action);
    expect(counterCalls).toEqual(['UpdateItem', 'PutItem']);
    expect(describeStages(calls).split(' | ')[1]).toContain('PutItem counters');
  });
});
