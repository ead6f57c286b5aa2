/**
 * validate-session and consume-session over HTTP: input rules, unknown tokens, the read-only
 * validate, the atomic consume (100 parallel calls), session ids, expiry through the injected clock.
 */
import { GetCommand } from '@aws-sdk/lib-dynamodb';
import { afterAll, beforeAll, describe, expect, test } from '@jest/globals';
import { randomUUID } from 'node:crypto';
import { createTestKey, UNLIMITED } from '../support/keys.js';
import { startStack, type Stack } from '../support/local-stack.js';
import { API, failure, sessionsApi } from '../support/sessions-api.js';

let stack: Stack;
let api: ReturnType<typeof sessionsApi>;
beforeAll(async () => {
  stack = await startStack();
  // A key of org 1 (like the demo key) whose limits the file's calls never meet.
  const partner = await createTestKey(stack, UNLIMITED);
  api = sessionsApi(stack, () => partner.raw);
});
afterAll(() => stack.stop());

const GONE = failure('Session is invalid, already consumed, or expired');
const storedToken = async (token: string) =>
  (await stack.services.client.send(new GetCommand({ TableName: stack.tableNames.tokens, Key: { token }, ConsistentRead: true }))).Item;
/** Move the stack's clock forward so that it reads `ms` now. */
const setClock = (ms: number) => stack.clock.advance(ms - stack.clock.now());

describe('validate-session', () => {
  test('reads a token without a credential and without consuming it', async () => {
    const token = await api.mint({ game_id: 101, external_ref: 'r-1', metadata: { a: 1 } });
    for (let i = 0; i < 3; i++) {
      const reply = await api.validate(token);
      expect(reply.status).toBe(200);
      expect(reply.body).toEqual({
        success: true,
        data: {
          valid: true,
          status: 'active',
          game_id: 101,
          stream_id: null,
          expires_at: expect.any(String),
          external_ref: 'r-1',
          metadata: { a: 1 },
          player_bound: false,
        },
      });
      expect(reply.headers.get('ratelimit')).toBeNull();
    }
    expect((await api.consume({ token })).status).toBe(200);
  });

  test('the token is case-insensitive', async () => {
    const token = await api.mint();
    const reply = await api.validate(token.toUpperCase());
    expect(reply.status).toBe(200);
    expect(reply.body.data.status).toBe('active');
  });

  test('a missing token parameter: 400', async () => {
    const reply = await stack.request(`${API}?action=validate-session`);
    expect(reply.status).toBe(400);
    expect(reply.body).toEqual(failure('token: is required'));
  });

  test.each([
    ['empty', ''],
    ['not a UUID', 'abc'],
    ['a UUID with braces', `{${randomUUID()}}`],
    ['a UUID with a trailing character', `${randomUUID()}0`],
    ['a UUID without hyphens', randomUUID().replaceAll('-', '')],
    ['two tokens', `${randomUUID()},${randomUUID()}`],
  ])('an invalid token (%s): 400', async (_name, token) => {
    const reply = await api.validate(token);
    expect(reply.status).toBe(400);
    expect(reply.body.success).toBe(false);
    expect(reply.body.error).toContain('token');
  });

  test('a token that does not exist: 404 Session not found', async () => {
    const reply = await api.validate(randomUUID());
    expect(reply.status).toBe(404);
    expect(reply.body).toEqual(failure('Session not found'));
  });

  test('a consumed token reads as consumed, not valid', async () => {
    const token = await api.mint({ stream_id: 201 });
    await api.consume({ token });
    expect((await api.validate(token)).body.data).toMatchObject({ valid: false, status: 'consumed', game_id: null, stream_id: 201 });
  });
});

describe('consume-session', () => {
  test('consumes once and returns the session data', async () => {
    const token = await api.mint({ game_id: 102, external_ref: 'order-9', metadata: { user: 'u-1' } });
    const reply = await api.consume({ token, player_uuid: 'player-1' });
    expect(reply.status).toBe(200);
    expect(reply.body).toEqual({
      success: true,
      data: {
        session_id: expect.any(Number),
        org_id: 1,
        game_id: 102,
        stream_id: null,
        external_ref: 'order-9',
        metadata: { user: 'u-1' },
      },
    });
    expect(reply.body.data.session_id).toBeGreaterThan(0);
    expect(Number.isSafeInteger(reply.body.data.session_id)).toBe(true);
    expect(await storedToken(token)).toMatchObject({ status: 'consumed', player_uuid: 'player-1', session_id: reply.body.data.session_id });

    const again = await api.consume({ token });
    expect(again.status).toBe(410);
    expect(again.body).toEqual(GONE);
  });

  test('a stream token consumes with game_id null; absent fields read as null', async () => {
    const token = await api.mint({ stream_id: 202 });
    const reply = await api.consume({ token });
    expect(reply.body.data).toMatchObject({ org_id: 1, game_id: null, stream_id: 202, external_ref: null, metadata: null });
  });

  test('an upper-case token is accepted', async () => {
    const token = await api.mint();
    const reply = await api.consume({ token: token.toUpperCase() });
    expect(reply.status).toBe(200);
    expect((await api.validate(token)).body.data.status).toBe('consumed');
  });

  test('a token that does not exist: 410', async () => {
    const reply = await api.consume({ token: randomUUID() });
    expect(reply.status).toBe(410);
    expect(reply.body).toEqual(GONE);
  });

  test('an unknown token is not created by the attempt', async () => {
    const token = randomUUID();
    await api.consume({ token });
    expect((await api.validate(token)).status).toBe(404);
  });

  test.each([
    ['missing', {}],
    ['null', { token: null }],
    ['a number', { token: 12345 }],
    ['not a UUID', { token: 'session-1' }],
    ['empty', { token: '' }],
  ])('a token that is %s: 400', async (_name, body) => {
    const reply = await api.consume(body);
    expect(reply.status).toBe(400);
    expect(reply.body.success).toBe(false);
    expect(reply.body.error).toContain('token');
  });

  test('player_uuid of 255 characters is stored; 256 is 400 naming the field and the bound, and nothing is consumed', async () => {
    const token = await api.mint();
    const long = await api.consume({ token, player_uuid: 'p'.repeat(256) });
    expect(long.status).toBe(400);
    expect(long.body.error).toContain('player_uuid');
    expect(long.body.error).toContain('255');
    expect((await api.validate(token)).body.data.status).toBe('active');

    expect((await api.consume({ token, player_uuid: 'p'.repeat(255) })).status).toBe(200);
    expect((await storedToken(token))?.player_uuid).toBe('p'.repeat(255));
  });

  test('player_uuid that is not a string: 400', async () => {
    const token = await api.mint();
    expect((await api.consume({ token, player_uuid: 42 })).status).toBe(400);
    expect((await api.validate(token)).body.data.status).toBe('active');
  });

  test('malformed JSON and non-JSON content types: 400', async () => {
    const post = (body: string, type: string) =>
      stack.request(`${API}?action=consume-session`, { method: 'POST', headers: { 'content-type': type }, body });
    const token = await api.mint();
    expect((await post(`{"token":"${token}"`, 'application/json')).status).toBe(400);
    expect((await post(JSON.stringify({ token }), 'text/plain')).status).toBe(400);
    expect((await post(`token=${token}`, 'application/x-www-form-urlencoded')).status).toBe(400);
    expect((await api.validate(token)).body.data.status).toBe('active');
  });

  test('100 parallel consumes of one token: exactly one 200 and 99 x 410', async () => {
    const token = await api.mint();
    const results = await Promise.all(Array.from({ length: 100 }, (_, i) => api.consume({ token, player_uuid: `p-${i}` })));
    const statuses = results.map((r) => r.status);
    expect(statuses.filter((s) => s === 200)).toHaveLength(1);
    expect(statuses.filter((s) => s === 410)).toHaveLength(99);
    const winner = results.find((r) => r.status === 200)!;
    const stored = await storedToken(token);
    expect(stored).toMatchObject({ status: 'consumed', session_id: winner.body.data.session_id });
    for (const loser of results.filter((r) => r.status === 410)) expect(loser.body).toEqual(GONE);
  });

  test('parallel consumes of different tokens get distinct session ids', async () => {
    const tokens = await Promise.all(Array.from({ length: 30 }, () => api.mint()));
    const results = await Promise.all(tokens.map((token) => api.consume({ token })));
    expect(results.every((r) => r.status === 200)).toBe(true);
    const ids = results.map((r) => r.body.data.session_id as number);
    expect(new Set(ids).size).toBe(ids.length);
    expect(ids.every((id) => Number.isSafeInteger(id) && id > 0)).toBe(true);
  });

  test('the token item is kept until expires_at + 7 days (TTL attribute)', async () => {
    const reply = await api.create({ game_id: 101, expires_in_minutes: 30 });
    const stored = await storedToken(reply.body.data.token);
    expect(stored?.ttl).toBe(Math.ceil(Date.parse(reply.body.data.expires_at) / 1000) + 7 * 86_400);
  });
});

// These tests move the stack's clock forward; they run last.
describe('expiry (injected clock)', () => {
  test('a token is active until its expires_at, then validates as expired and consumes with 410', async () => {
    const [first, second] = await Promise.all([1, 2].map(() => api.create({ game_id: 101, expires_in_minutes: 1 })));
    const expiresAt = Date.parse(first!.body.data.expires_at);
    expect(Date.parse(second!.body.data.expires_at) - expiresAt).toBeLessThan(5_000);

    setClock(Math.min(expiresAt, Date.parse(second!.body.data.expires_at)) - 5_000);
    expect((await api.validate(first!.body.data.token)).body.data).toMatchObject({ valid: true, status: 'active' });
    expect((await api.consume({ token: second!.body.data.token })).status).toBe(200);

    setClock(Math.max(expiresAt, Date.parse(second!.body.data.expires_at)) + 1);
    const view = await api.validate(first!.body.data.token);
    expect(view.status).toBe(200);
    expect(view.body.data).toMatchObject({ valid: false, status: 'expired', expires_at: first!.body.data.expires_at });
    const consumed = await api.consume({ token: first!.body.data.token });
    expect(consumed.status).toBe(410);
    expect(consumed.body).toEqual(GONE);
    expect((await api.validate(first!.body.data.token)).body.data.status).toBe('expired');
    // A token consumed before its expiry keeps reading as consumed.
    expect((await api.validate(second!.body.data.token)).body.data).toMatchObject({ valid: false, status: 'consumed' });
  });

  test('an expired token stays readable (not 404) until cleanup', async () => {
    const token = await api.mint({ stream_id: 201, expires_in_minutes: 1 });
    stack.clock.advance(24 * 60 * 60_000);
    const view = await api.validate(token);
    expect(view.status).toBe(200);
    expect(view.body.data).toMatchObject({ valid: false, status: 'expired', stream_id: 201 });
  });
});

describe('docs/api.md, "What each call answers for a token"', () => {
  test('an unknown token: 404 on validate, 410 on consume, 404 on revoke', async () => {
    const token = randomUUID();
    const replies = [await api.validate(token), await api.consume({ token }), await api.revoke({ token })];
    expect(replies.map((r) => [r.status, r.body.code])).toEqual([
      [404, 'not_found'],
      [410, 'session_gone'],
      [404, 'not_found'],
    ]);
  });

  test('a token that is not a UUID: 400 naming token on all three', async () => {
    const replies = [await api.validate('nope'), await api.consume({ token: 'nope' }), await api.revoke({ token: 'nope' })];
    expect(replies.map((r) => [r.status, r.body.code, r.body.param])).toEqual(Array(3).fill([400, 'invalid_input', 'token']));
  });
});
