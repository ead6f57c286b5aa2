/**
 * Limits against abuse, over HTTP: query-string length (414), JSON nesting depth and unpaired
 * surrogates (400, before parsing), metadata that DynamoDB could not hold as a map (kept exactly),
 * malformed path escapes (404, not a crash), and a rate-limited key refused cheaply: while its
 * window is known to be exhausted, its calls write nothing at all.
 */
import { afterAll, beforeAll, describe, expect, test } from '@jest/globals';
import { MAX_JSON_DEPTH, MAX_QUERY_STRING_BYTES } from '../../shared/platform/http/pipeline.js';
import { adminApi } from '../support/admin-api.js';
import { startOfNextMinute, UNLIMITED } from '../support/keys.js';
import { startStack, type Stack } from '../support/local-stack.js';
import { API, failure, sessionsApi } from '../support/sessions-api.js';
import { diffTables, snapshotTables } from '../support/tables.js';

let stack: Stack;
let api: ReturnType<typeof sessionsApi>;
let admin: ReturnType<typeof adminApi>;

beforeAll(async () => {
  stack = await startStack();
  admin = adminApi(stack);
  const created = (await admin.create({ org_id: 1, name: 'limits', ...UNLIMITED })).body.data;
  api = sessionsApi(stack, () => created.key);
});
afterAll(() => stack.stop());

describe('request limits', () => {
  test(`a query string over ${MAX_QUERY_STRING_BYTES} bytes is 414 with the envelope; at the limit it is read`, async () => {
    const token = await api.mint();
    const base = `action=validate-session&token=${token}&pad=`;
    const at = await stack.request(`${API}?${base}${'p'.repeat(MAX_QUERY_STRING_BYTES - base.length)}`);
    expect(at.status).toBe(200);
    const over = await stack.request(`${API}?${base}${'p'.repeat(MAX_QUERY_STRING_BYTES - base.length + 1)}`);
    expect(over.status).toBe(414);
    expect(over.body).toEqual(failure(`Query string exceeds ${MAX_QUERY_STRING_BYTES} bytes`));
  });

  test('a play page with an overlong query string is a 414 page', async () => {
    const reply = await stack.request(`/play/game/102?x=${'y'.repeat(MAX_QUERY_STRING_BYTES)}`);
    expect(reply.status).toBe(414);
    expect(reply.headers.get('content-type')).toMatch(/^text\/html/);
  });

  test(`JSON nested ${MAX_JSON_DEPTH} levels is read; deeper is 400 before parsing, at any size`, async () => {
    const metadata = (depth: number) => '{"m":'.repeat(depth) + '1' + '}'.repeat(depth);
    // The body object is level 1: metadata may nest MAX_JSON_DEPTH - 1 levels.
    const ok = await api.create(`{"game_id":101,"metadata":${metadata(MAX_JSON_DEPTH - 1)}}`);
    expect(ok.status).toBe(200);
    for (const depth of [MAX_JSON_DEPTH, 5_000]) {
      const deep = await api.create(`{"game_id":101,"metadata":${metadata(depth)}}`);
      expect(deep.status).toBe(400);
      expect(deep.body).toEqual(failure(`Request body is nested deeper than ${MAX_JSON_DEPTH} levels`));
    }
    const consume = await stack.post('consume-session', '['.repeat(10_000) + ']'.repeat(10_000));
    expect(consume.status).toBe(400);
  });

  test('an unpaired surrogate escape is 400; a surrogate pair round-trips', async () => {
    const lone = await api.create('{"game_id":101,"external_ref":"a\\ud800b"}');
    expect(lone.status).toBe(400);
    expect(lone.body.error).toMatch(/unpaired UTF-16 surrogate/);
    const pair = await api.create('{"game_id":101,"external_ref":"\\ud83c\\udfae"}');
    expect(pair.status).toBe(200);
    expect(pair.body.data.external_ref).toBe('🎮');
  });

  test('metadata with numbers DynamoDB cannot hold as a map is kept exactly, not a 500', async () => {
    const metadata = { big: 2 ** 60, huge: 1e300, tiny: 1e-200, negative: -1.5e200, nested: { id: 123456789012345680000 } };
    const created = await api.create({ game_id: 101, metadata });
    expect(created.status).toBe(200);
    expect((await api.validate(created.body.data.token)).body.data.metadata).toEqual(metadata);
    expect((await api.consume({ token: created.body.data.token })).body.data.metadata).toEqual(metadata);
  });

  test('a malformed escape in a path is 404, not a crash', async () => {
    for (const path of ['/play/game/%E0%A4%A', '/stream/acme/%zz', '/embed/%']) {
      const reply = await stack.request(path);
      expect(reply.status).toBe(404);
    }
  });
});

describe('a rate-limited key is refused cheaply', () => {
  test('while its window is exhausted, calls are 429 with Retry-After and write nothing; a raised limit applies at once', async () => {
    startOfNextMinute(stack);
    const created = (await admin.create({ org_id: 1, name: 'blocked', rate_limit_per_minute: 2 })).body.data;
    const blocked = sessionsApi(stack, () => created.key);
    expect((await blocked.create({ game_id: 101 })).status).toBe(200);
    expect((await blocked.create({ game_id: 101 })).status).toBe(200);
    expect((await blocked.create({ game_id: 101 })).status).toBe(429); // counted by the window, audited

    const victim = await api.mint();
    const before = await snapshotTables(stack);
    for (let i = 0; i < 20; i++) {
      const refused = await blocked.create({ game_id: 101 });
      expect(refused.status).toBe(429);
      expect(refused.body.error).toMatch(/^Rate limit exceeded \(per minute\)/);
      expect(Number(refused.headers.get('retry-after'))).toBeGreaterThan(0);
      expect(refused.headers.get('ratelimit')).toMatch(/^"minute";r=0;t=\d+$/);
    }
    expect((await blocked.revoke({ token: victim })).status).toBe(429);
    // Not a single write: no count, no audit record, no use stamp, no token.
    const diff = diffTables(before, await snapshotTables(stack));
    for (const [table, change] of Object.entries(diff))
      expect({ table, ...change }).toEqual({ table, added: [], removed: [], changed: [] });
    expect(Object.keys(diff)).toEqual(expect.arrayContaining(['tokens', 'keys', 'counters', 'audit']));

    // Revoked while blocked: authentication comes first, so 401 at once.
    expect((await admin.update({ id: created.id, org_id: 1, rate_limit_per_minute: 100 })).status).toBe(200);
    expect((await blocked.create({ game_id: 101 })).status).toBe(200);
    expect((await admin.update({ id: created.id, org_id: 1, is_active: false })).status).toBe(200);
    expect((await blocked.create({ game_id: 101 })).status).toBe(401);
  });
});
