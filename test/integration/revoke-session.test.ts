/**
 * revoke-session over HTTP (docs/decisions.md#revocation): the key's org must own the token (otherwise 404), only
 * an active token can be revoked (otherwise 410), and a revoked token is gone for consume.
 */
import { afterAll, beforeAll, describe, expect, test } from '@jest/globals';
import { randomUUID } from 'node:crypto';
import { auditOfKey, createTestKey, putKeyRecord, startOfNextMinute, windowCounts, type TestKey, UNLIMITED } from '../support/keys.js';
import { startStack, type Stack } from '../support/local-stack.js';
import { failure, sessionsApi } from '../support/sessions-api.js';

let stack: Stack;
let api: ReturnType<typeof sessionsApi>;
let globex: TestKey;
beforeAll(async () => {
  stack = await startStack();
  // A key of org 1 (like the demo key) whose limits the file's calls never meet.
  const partner = await createTestKey(stack, UNLIMITED);
  api = sessionsApi(stack, () => partner.raw);
  globex = await createTestKey(stack, {}, { org_id: 2, tier: 'enterprise' });
});
afterAll(() => stack.stop());

const GONE = failure('Session is invalid, already consumed, or expired');
const NOT_FOUND = failure('Session not found');

describe('revoke-session', () => {
  test('an active token of the key’s org: 200 with its view, status revoked', async () => {
    const created = await api.create({ game_id: 101, external_ref: 'o-1', metadata: { m: 1 } });
    const { token, expires_at } = created.body.data;
    const reply = await api.revoke({ token });
    expect(reply.status).toBe(200);
    expect(reply.body).toEqual({
      success: true,
      data: {
        valid: false,
        status: 'revoked',
        game_id: 101,
        stream_id: null,
        expires_at,
        external_ref: 'o-1',
        metadata: { m: 1 },
        player_bound: false,
      },
    });
  });

  test('a revoked token then fails consume with 410 and validates as revoked', async () => {
    const token = await api.mint({ stream_id: 201 });
    expect((await api.revoke({ token })).status).toBe(200);
    const consumed = await api.consume({ token });
    expect(consumed.status).toBe(410);
    expect(consumed.body).toEqual(GONE);
    expect((await api.validate(token)).body.data).toMatchObject({ valid: false, status: 'revoked', stream_id: 201, game_id: null });
  });

  test('any key of the owning org whose allow-lists cover the token may revoke; the token is case-insensitive', async () => {
    const other = await createTestKey(stack, { allowed_game_ids: [102] });
    const token = await api.mint({ game_id: 102 });
    const reply = await api.revoke({ token: token.toUpperCase() }, other.raw);
    expect(reply.status).toBe(200);
    expect(reply.body.data.status).toBe('revoked');
  });

  test('another org’s token: 404, and the token is untouched', async () => {
    const token = await api.mint({ game_id: 301 }, globex.raw);
    const reply = await api.revoke({ token });
    expect(reply.status).toBe(404);
    expect(reply.body).toEqual(NOT_FOUND);
    expect((await api.validate(token)).body.data).toMatchObject({ valid: true, status: 'active' });
    expect((await api.consume({ token })).status).toBe(200);
  });

  test('another org’s token that is no longer active: still 404 (no probing)', async () => {
    const token = await api.mint({ game_id: 301 }, globex.raw);
    await api.consume({ token });
    expect((await api.revoke({ token })).status).toBe(404);
  });

  test('an unknown token: 404, and nothing is created', async () => {
    const token = randomUUID();
    const reply = await api.revoke({ token });
    expect(reply.status).toBe(404);
    expect(reply.body).toEqual(NOT_FOUND);
    expect((await api.validate(token)).status).toBe(404);
  });

  test('a consumed token: 410', async () => {
    const token = await api.mint();
    await api.consume({ token });
    const reply = await api.revoke({ token });
    expect(reply.status).toBe(410);
    expect(reply.body).toEqual(GONE);
    expect((await api.validate(token)).body.data.status).toBe('consumed');
  });

  test('an already revoked token: 410', async () => {
    const token = await api.mint();
    expect((await api.revoke({ token })).status).toBe(200);
    const again = await api.revoke({ token });
    expect(again.status).toBe(410);
    expect(again.body).toEqual(GONE);
  });

  test('revokes racing consumes of one token: exactly one call wins, all others are 410', async () => {
    const token = await api.mint();
    const results = await Promise.all(
      Array.from({ length: 40 }, (_, i) => (i % 2 ? api.revoke({ token }) : api.consume({ token, player_uuid: `p-${i}` }))),
    );
    const winners = results.filter((r) => r.status === 200);
    expect(winners).toHaveLength(1);
    expect(results.filter((r) => r.status === 410)).toHaveLength(39);
    const status = (await api.validate(token)).body.data.status;
    expect(status).toBe('session_id' in winners[0]!.body.data ? 'consumed' : 'revoked');
  });

  test.each([
    ['missing', {}],
    ['not a UUID', { token: 'abc' }],
    ['a number', { token: 1 }],
  ])('a token that is %s: 400', async (_name, body) => {
    const reply = await api.revoke(body);
    expect(reply.status).toBe(400);
    expect(reply.body.error).toContain('token');
  });

  test('credentials: missing or malformed key 401, revoked key 401, free tier 403', async () => {
    const token = await api.mint();
    expect((await api.revoke({ token }, null)).status).toBe(401);
    expect((await api.revoke({ token }, 'dpk_nope')).status).toBe(401);

    const revoked = await createTestKey(stack);
    await putKeyRecord(stack, { ...revoked.record, is_active: false });
    const reply = await api.revoke({ token }, revoked.raw);
    expect(reply.status).toBe(401);
    expect(reply.body).toEqual(failure('API key has been revoked'));

    const free = await createTestKey(stack, {}, { org_id: 1, tier: 'free' });
    const tier = await api.revoke({ token }, free.raw);
    expect(tier.status).toBe(403);
    expect(tier.body).toEqual(failure('Business tier or higher required'));
    expect((await api.validate(token)).body.data.status).toBe('active');
  });
});

// A key whose `allowed_game_ids` is [] may not revoke another key's token for game 101, nor learn its
// external_ref and metadata. The allow-lists bound revoke as they bound create (docs/decisions.md#scopes).
describe('revoke-session: the key’s allow-lists', () => {
  const OUT_OF_SCOPE = {
    success: false,
    error: "This API key has no access to this session's game or stream",
    code: 'out_of_scope',
    request_id: expect.any(String),
  };

  test('a token of a game outside the key’s allow-list ([] = none): 403 out_of_scope, the token untouched and undisclosed', async () => {
    const none = await createTestKey(stack, { allowed_game_ids: [] });
    const token = await api.mint({ game_id: 101, external_ref: 'secret-ref', metadata: { secret: 1 } });
    const reply = await api.revoke({ token }, none.raw);
    expect(reply.status).toBe(403);
    expect(reply.body).toEqual(OUT_OF_SCOPE);
    expect(JSON.stringify(reply.body)).not.toMatch(/secret|101/);
    expect((await api.validate(token)).body.data).toMatchObject({ valid: true, status: 'active' });
    expect((await api.consume({ token })).status).toBe(200);
    expect((await auditOfKey(stack, none.record.id)).map((r) => [r.action, r.status])).toEqual([['revoke-session', 403]]);
  });

  test('a game list limits games only, a stream list streams only; a set list allows its ids', async () => {
    const gamesOnly = await createTestKey(stack, { allowed_game_ids: [101] });
    const noStreams = await createTestKey(stack, { allowed_stream_ids: [] });
    const stream201 = await createTestKey(stack, { allowed_game_ids: [], allowed_stream_ids: [201] });
    expect((await api.revoke({ token: await api.mint({ game_id: 102 }) }, gamesOnly.raw)).status).toBe(403);
    expect((await api.revoke({ token: await api.mint({ game_id: 101 }) }, gamesOnly.raw)).status).toBe(200);
    // No stream list: every stream of the org.
    expect((await api.revoke({ token: await api.mint({ stream_id: 201 }) }, gamesOnly.raw)).status).toBe(200);
    expect((await api.revoke({ token: await api.mint({ stream_id: 201 }) }, noStreams.raw)).status).toBe(403);
    expect((await api.revoke({ token: await api.mint({ game_id: 102 }) }, noStreams.raw)).status).toBe(200);
    expect((await api.revoke({ token: await api.mint({ stream_id: 201 }) }, stream201.raw)).status).toBe(200);
    expect((await api.revoke({ token: await api.mint({ game_id: 101 }) }, stream201.raw)).status).toBe(403);
  });

  test('out of scope comes before the token’s state: a consumed token of a game outside the list is 403, not 410', async () => {
    const none = await createTestKey(stack, { allowed_game_ids: [] });
    const token = await api.mint({ game_id: 101 });
    await api.consume({ token });
    const reply = await api.revoke({ token }, none.raw);
    expect(reply.status).toBe(403);
    expect(reply.body).toEqual(OUT_OF_SCOPE);
    expect((await api.validate(token)).body.data.status).toBe('consumed');
  });

  test('a restricted key: another org’s or an unknown token is still 404; an allowed one that is gone still 410', async () => {
    const restricted = await createTestKey(stack, { allowed_game_ids: [101], allowed_stream_ids: [] });
    const foreign = await api.mint({ game_id: 301 }, globex.raw);
    expect((await api.revoke({ token: foreign }, restricted.raw)).body).toEqual(NOT_FOUND);
    expect((await api.revoke({ token: randomUUID() }, restricted.raw)).status).toBe(404);
    expect((await api.validate(foreign)).body.data.status).toBe('active');
    const used = await api.mint({ game_id: 101 });
    await api.consume({ token: used });
    expect((await api.revoke({ token: used }, restricted.raw)).body).toEqual(GONE);
  });
});

describe('revoke-session: audit and metering', () => {
  test('each revoke is counted and audited with its outcome (200, 404, 410)', async () => {
    const key = await createTestKey(stack);
    const token = await api.mint();
    const ok = await api.revoke({ token }, key.raw);
    expect(ok.status).toBe(200);
    expect(ok.headers.get('ratelimit-policy')).toBe('"minute";q=60;w=60, "day";q=10000;w=86400');
    expect(ok.headers.get('ratelimit')).toMatch(/^"minute";r=59;t=\d+$/);
    expect((await api.revoke({ token: randomUUID() }, key.raw)).status).toBe(404);
    expect((await api.revoke({ token }, key.raw)).status).toBe(410);

    const records = await auditOfKey(stack, key.record.id);
    expect(records.map((r) => r.status).sort()).toEqual([200, 404, 410]);
    for (const r of records) expect(r).toMatchObject({ org_id: 1, action: 'revoke-session', key_id: key.record.id });
    expect(records.find((r) => r.status === 200)?.token_prefix).toBe(token.slice(0, 8));
    expect(JSON.stringify(records)).not.toContain(token);
  });

  test('a revoke refused by the rate limit leaves the token active and is audited as 429', async () => {
    startOfNextMinute(stack);
    const key = await createTestKey(stack, { rate_limit_per_minute: 1 });
    const token = await api.mint();
    expect((await api.revoke({ token: randomUUID() }, key.raw)).status).toBe(404);
    const refused = await api.revoke({ token }, key.raw);
    expect(refused.status).toBe(429);
    expect(Number(refused.headers.get('retry-after'))).toBeGreaterThan(0);
    expect((await api.validate(token)).body.data).toMatchObject({ valid: true, status: 'active' });
    expect(await windowCounts(stack, key.record)).toEqual({ minute: 1, day: 1 });
    expect((await auditOfKey(stack, key.record.id)).map((r) => r.status).sort()).toEqual([404, 429]);
    // The next minute the same revoke goes through.
    stack.clock.advance(60_000);
    expect((await api.revoke({ token }, key.raw)).status).toBe(200);
  });
});

// Moves the clock forward: runs last.
describe('revoke-session: expiry', () => {
  test('an expired token: 410', async () => {
    const token = await api.mint({ game_id: 101, expires_in_minutes: 1 });
    stack.clock.advance(61_000);
    const reply = await api.revoke({ token });
    expect(reply.status).toBe(410);
    expect(reply.body).toEqual(GONE);
    expect((await api.validate(token)).body.data.status).toBe('expired');
  });
});
