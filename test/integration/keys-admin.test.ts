import { afterAll, beforeAll, describe, expect, test } from '@jest/globals';
import { ScanCommand } from '@aws-sdk/lib-dynamodb';
import { createHash } from 'node:crypto';
import { adminApi, type AdminApi } from '../support/admin-api.js';
import { startStack, type Stack } from '../support/local-stack.js';

let stack: Stack;
let admin: AdminApi;
beforeAll(async () => {
  stack = await startStack();
  admin = adminApi(stack);
});
afterAll(() => stack.stop());

const VIEW_FIELDS = [
  'allowed_game_ids',
  'allowed_stream_ids',
  'created_at',
  'description',
  'expires_at',
  'id',
  'is_active',
  'key_prefix',
  'last_used_at',
  'mcp_scopes',
  'name',
  'org_id',
  'rate_limit_per_day',
  'rate_limit_per_minute',
  'rotated_from',
  'rotated_to',
  'updated_at',
];
const ISO = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;

const createSession = (key: string, body: unknown = { game_id: 101 }) => stack.post('create-session', body, { 'x-api-key': key });
const isoIn = (ms: number) => new Date(stack.clock.now() + ms).toISOString();

async function newKey(body: Record<string, unknown> = {}): Promise<{ id: number; key: string; data: any }> {
  const res = await admin.create({ org_id: 1, name: 'test key', ...body });
  expect(res.status).toBe(200);
  return { id: res.body.data.id, key: res.body.data.key, data: res.body.data };
}

describe('create', () => {
  test('returns the raw key once, with defaults (60/min, 10,000/day, active, unscoped, no scopes)', async () => {
    const res = await admin.create({ org_id: 1, name: 'Checkout server' });
    expect(res.status).toBe(200);
    expect(res.body.success).toBe(true);
    const data = res.body.data;
    expect(Object.keys(data).sort()).toEqual([...VIEW_FIELDS, 'key'].sort());
    expect(data.key).toMatch(/^dpk_[0-9a-f]{40}$/);
    expect(data.key_prefix).toBe(data.key.slice(0, 8));
    expect(Number.isSafeInteger(data.id) && data.id > 0).toBe(true);
    expect(data).toMatchObject({
      org_id: 1,
      name: 'Checkout server',
      description: null,
      allowed_game_ids: null,
      allowed_stream_ids: null,
      rate_limit_per_minute: 60,
      rate_limit_per_day: 10_000,
      expires_at: null,
      is_active: true,
      mcp_scopes: [],
      last_used_at: null,
      rotated_to: null,
      rotated_from: null,
    });
    expect(data.created_at).toMatch(ISO);
    expect(data.updated_at).toBe(data.created_at);

    // Stored as SHA-256 and prefix only: the raw key is nowhere in the table.
    const { Items } = await stack.services.client.send(new ScanCommand({ TableName: stack.tableNames.keys }));
    const stored = Items!.find((i) => i.id === data.id)!;
    expect(stored.key_hash).toBe(createHash('sha256').update(data.key).digest('hex'));
    expect(JSON.stringify(Items)).not.toContain(data.key);
    expect(stored.org_tier).toBe('business');

    // The new key works at once.
    expect((await createSession(data.key)).status).toBe(200);
  });

  test('takes every property; keys are distinct with unique increasing integer ids', async () => {
    const expires = isoIn(86_400_000);
    const res = await admin.create({
      org_id: 1,
      name: 'Scoped',
      description: 'Only game 102',
      allowed_game_ids: [102],
      allowed_stream_ids: [],
      rate_limit_per_minute: 5,
      rate_limit_per_day: 50,
      expires_at: expires,
      mcp_scopes: ['mcp:sessions:write', 'mcp:games:read', 'mcp:sessions:write'],
    });
    expect(res.status).toBe(200);
    expect(res.body.data).toMatchObject({
      description: 'Only game 102',
      allowed_game_ids: [102],
      allowed_stream_ids: [],
      rate_limit_per_minute: 5,
      rate_limit_per_day: 50,
      expires_at: expires,
      mcp_scopes: ['mcp:sessions:write', 'mcp:games:read'],
    });
    const { key } = res.body.data;
    expect((await createSession(key, { game_id: 102 })).status).toBe(200);
    expect((await createSession(key, { game_id: 101 })).status).toBe(403);
    expect((await createSession(key, { stream_id: 202 })).status).toBe(403);

    const more = await Promise.all([newKey(), newKey(), newKey()]);
    const ids = [res.body.data.id, ...more.map((k) => k.id)];
    expect(new Set(ids).size).toBe(ids.length);
    expect(new Set(more.map((k) => k.key)).size).toBe(3);
    const later = await newKey();
    expect(later.id).toBeGreaterThan(Math.max(...ids));
  });

  test('a zoned expires_at is stored in UTC with milliseconds', async () => {
    const at = new Date(stack.clock.now() + 3 * 86_400_000);
    at.setUTCMilliseconds(0);
    const zoned = at.toISOString().replace('.000Z', '+00:00');
    const { data } = await newKey({ expires_at: zoned });
    expect(data.expires_at).toBe(at.toISOString());
  });
});

describe('list', () => {
  test('returns the org’s keys by id, with every listed field and never the key or its hash', async () => {
    const created = await newKey({ name: 'listed' });
    const res = await admin.list(1);
    expect(res.status).toBe(200);
    expect(Array.isArray(res.body.data)).toBe(true);
    for (const k of res.body.data) {
      expect(Object.keys(k).sort()).toEqual(VIEW_FIELDS);
      expect(k.org_id).toBe(1);
    }
    const text = JSON.stringify(res.body);
    expect(text).not.toContain(created.key);
    expect(text).not.toMatch(/key_hash|org_tier|"key"/);
    expect(text).not.toContain(createHash('sha256').update(created.key).digest('hex'));
    const listed = res.body.data.find((k: any) => k.id === created.id);
    const { key: _key, ...view } = created.data;
    expect(listed).toEqual(view);
    const ids = res.body.data.map((k: any) => k.id);
    expect(ids).toEqual([...ids].sort((a: number, b: number) => a - b));
    // The seeded demo key is there too.
    expect(res.body.data.some((k: any) => k.name === 'Demo key')).toBe(true);
  });

  test('shows last_used_at after the key is used', async () => {
    const { id, key } = await newKey();
    expect((await createSession(key)).status).toBe(200);
    const listed = (await admin.list(1)).body.data.find((k: any) => k.id === id);
    expect(listed.last_used_at).toMatch(ISO);
  });
});

describe('update', () => {
  test('changes every property and returns the record as the list shows it', async () => {
    const { id, data: before } = await newKey({ description: 'old', expires_at: isoIn(86_400_000) });
    stack.clock.advance(1000);
    const expires = isoIn(7 * 86_400_000);
    const res = await admin.update({
      id,
      org_id: 1,
      name: 'renamed',
      description: 'new',
      allowed_game_ids: [101, 102],
      allowed_stream_ids: [201],
      rate_limit_per_minute: 7,
      rate_limit_per_day: 70,
      expires_at: expires,
      mcp_scopes: ['mcp:reports:read'],
      is_active: true,
    });
    expect(res.status).toBe(200);
    expect(Object.keys(res.body.data).sort()).toEqual(VIEW_FIELDS);
    expect(res.body.data).toMatchObject({
      id,
      org_id: 1,
      name: 'renamed',
      description: 'new',
      allowed_game_ids: [101, 102],
      allowed_stream_ids: [201],
      rate_limit_per_minute: 7,
      rate_limit_per_day: 70,
      expires_at: expires,
      mcp_scopes: ['mcp:reports:read'],
      is_active: true,
      key_prefix: before.key_prefix,
      created_at: before.created_at,
    });
    expect(res.body.data.updated_at > before.updated_at).toBe(true);
    expect((await admin.list(1)).body.data.find((k: any) => k.id === id)).toEqual(res.body.data);
  });

  test('null clears description, allow-lists and expires_at; other properties stay', async () => {
    const { id } = await newKey({ description: 'x', allowed_game_ids: [101], allowed_stream_ids: [201], expires_at: isoIn(3_600_000) });
    const res = await admin.update({
      id,
      org_id: 1,
      description: null,
      allowed_game_ids: null,
      allowed_stream_ids: null,
      expires_at: null,
    });
    expect(res.status).toBe(200);
    expect(res.body.data).toMatchObject({
      description: null,
      allowed_game_ids: null,
      allowed_stream_ids: null,
      expires_at: null,
      name: 'test key',
      rate_limit_per_minute: 60,
    });
  });

  test('a new rate limit applies to the very next call', async () => {
    const { id, key } = await newKey();
    // Start at the beginning of a UTC minute so both calls share one window.
    stack.clock.advance(60_000 - (stack.clock.now() % 60_000) + 50);
    expect((await admin.update({ id, org_id: 1, rate_limit_per_minute: 1 })).status).toBe(200);
    expect((await createSession(key)).status).toBe(200);
    const refused = await createSession(key);
    expect(refused.status).toBe(429);
  });

  test('a body that changes nothing is 400 (a misspelt property must not look like success)', async () => {
    const { id } = await newKey();
    const res = await admin.update({ id, org_id: 1, isActive: false });
    expect(res.status).toBe(400);
    // Issue 18: the misspelt property itself is named.
    expect([res.body.error, res.body.param]).toEqual(['unknown field isActive', 'isActive']);
    const nothing = await admin.update({ id, org_id: 1 });
    expect(nothing.status).toBe(400);
    expect(nothing.body.error).toMatch(/at least one property to change/);
    const listed = (await admin.list(1)).body.data.find((k: any) => k.id === id);
    expect(listed.is_active).toBe(true);
  });

  test('an unknown id in the org is 404', async () => {
    const res = await admin.update({ id: 999_999, org_id: 1, is_active: false });
    expect(res.status).toBe(404);
    expect(res.body).toEqual({
      success: false,
      error: expect.stringContaining('not found'),
      code: expect.any(String),
      request_id: expect.any(String),
    });
  });
});

describe('delete', () => {
  test('removes the key permanently: {id, deleted:true}, gone from the list, a second delete is 404', async () => {
    const { id } = await newKey();
    const res = await admin.remove(id, 1);
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ success: true, data: { id, deleted: true } });
    expect((await admin.list(1)).body.data.some((k: any) => k.id === id)).toBe(false);
    expect((await admin.remove(id, 1)).status).toBe(404);
    expect((await admin.update({ id, org_id: 1, is_active: true })).status).toBe(404);
  });
});

describe('immediate effect on create-session', () => {
  test('revoke: 401 on the very next call; reactivate: 200; earlier tokens stay valid', async () => {
    const { id, key } = await newKey();
    const before = await createSession(key);
    expect(before.status).toBe(200);

    const revoked = await admin.update({ id, org_id: 1, is_active: false });
    expect(revoked.status).toBe(200);
    expect(revoked.body.data.is_active).toBe(false);
    const refused = await createSession(key);
    expect(refused.status).toBe(401);
    expect(refused.body).toEqual({
      success: false,
      error: 'API key has been revoked',
      code: expect.any(String),
      request_id: expect.any(String),
    });

    // Tokens minted before the revocation still validate and consume.
    const token = before.body.data.token;
    const validated = await stack.request(`/api/org-api-keys?action=validate-session&token=${token}`);
    expect(validated.body.data).toMatchObject({ valid: true, status: 'active' });

    expect((await admin.update({ id, org_id: 1, is_active: true })).status).toBe(200);
    expect((await createSession(key)).status).toBe(200);
    expect((await stack.post('consume-session', { token })).status).toBe(200);
  });

  test('delete: 401 on the very next call', async () => {
    const { id, key } = await newKey();
    expect((await createSession(key)).status).toBe(200);
    expect((await admin.remove(id, 1)).status).toBe(200);
    const refused = await createSession(key);
    expect(refused.status).toBe(401);
    expect(refused.body).toEqual({ success: false, error: 'Invalid API key', code: expect.any(String), request_id: expect.any(String) });
  });

  test('expires_at a few seconds ahead: works until then, 401 from its expiry on', async () => {
    const { key, data } = await newKey({ expires_at: isoIn(5_000) });
    expect((await createSession(key)).status).toBe(200);
    stack.clock.advance(Date.parse(data.expires_at) - stack.clock.now() - 500);
    expect((await createSession(key)).status).toBe(200);
    stack.clock.advance(1_000);
    const refused = await createSession(key);
    expect(refused.status).toBe(401);
    expect(refused.body).toEqual({
      success: false,
      error: 'API key has expired',
      code: expect.any(String),
      request_id: expect.any(String),
    });
  });

  test('a new expiry set by update applies at once; clearing it brings the key back', async () => {
    const { id, key } = await newKey();
    expect((await admin.update({ id, org_id: 1, expires_at: isoIn(2_000) })).status).toBe(200);
    stack.clock.advance(3_000);
    expect((await createSession(key)).status).toBe(401);
    expect((await admin.update({ id, org_id: 1, expires_at: null })).status).toBe(200);
    expect((await createSession(key)).status).toBe(200);
  });
});

describe('bounds (docs/decisions.md#api-keys): just inside is accepted, just outside is a 400 naming the field', () => {
  const cases: [string, unknown, boolean][] = [
    ['name', 'x', true],
    ['name', 'x'.repeat(100), true],
    ['name', 'x'.repeat(101), false],
    ['name', '', false],
    ['name', '   ', false],
    ['name', 42, false],
    ['description', 'd'.repeat(500), true],
    ['description', 'd'.repeat(501), false],
    ['allowed_game_ids', Array.from({ length: 1000 }, (_, i) => i + 1), true],
    ['allowed_game_ids', Array.from({ length: 1001 }, (_, i) => i + 1), false],
    ['allowed_game_ids', [0], false],
    ['allowed_game_ids', [1.5], false],
    ['allowed_game_ids', 'all', false],
    ['allowed_stream_ids', Array.from({ length: 1000 }, (_, i) => i + 1), true],
    ['allowed_stream_ids', Array.from({ length: 1001 }, (_, i) => i + 1), false],
    ['allowed_stream_ids', [-1], false],
    ['rate_limit_per_minute', 1, true],
    ['rate_limit_per_minute', 0, false],
    ['rate_limit_per_minute', 100_000, true],
    ['rate_limit_per_minute', 100_001, false],
    ['rate_limit_per_minute', 1.5, false],
    ['rate_limit_per_minute', '60', false],
    ['rate_limit_per_day', 1, true],
    ['rate_limit_per_day', 0, false],
    ['rate_limit_per_day', 100_000_000, true],
    ['rate_limit_per_day', 100_000_001, false],
    ['expires_at', 'in-the-future', true],
    ['expires_at', 'in-the-past', false],
    ['expires_at', 'tomorrow', false],
    ['expires_at', '2030-01-01', false],
    ['mcp_scopes', ['mcp:templates:read', 'mcp:ai', 'mcp:sessions:write'], true],
    ['mcp_scopes', ['mcp:unknown'], false],
    ['mcp_scopes', ['MCP:AI'], false],
    ['mcp_scopes', 'mcp:ai', false],
  ];
  const value = (v: unknown) => (v === 'in-the-future' ? isoIn(60_000) : v === 'in-the-past' ? isoIn(-1_000) : v);

  test.each(cases)('create: %s = %p -> accepted: %p', async (field, v, ok) => {
    const res = await admin.create({ org_id: 1, name: 'bounds', [field]: value(v) });
    expect(res.status).toBe(ok ? 200 : 400);
    if (!ok) expect(res.body.error).toMatch(new RegExp(`^${field}\\b`));
  });

  let target: number;
  beforeAll(async () => {
    target = (await newKey()).id;
  });
  test.each(cases)('update: %s = %p -> accepted: %p', async (field, v, ok) => {
    const res = await admin.update({ id: target, org_id: 1, [field]: value(v) });
    expect(res.status).toBe(ok ? 200 : 400);
    if (!ok) expect(res.body.error).toMatch(new RegExp(`^${field}\\b`));
  });

  test.each([
    ['create', { name: 'no org' }, 'org_id'],
    ['create', { org_id: 1 }, 'name'],
    ['create', { org_id: 0, name: 'x' }, 'org_id'],
    ['create', { org_id: '1', name: 'x' }, 'org_id'],
    ['update', { org_id: 1, is_active: false }, 'id'],
    ['update', { id: 1, is_active: false }, 'org_id'],
    ['update', { id: 1, org_id: 1, is_active: 'no' }, 'is_active'],
  ])('%s without a valid %p names the field', async (op, body, field) => {
    const res = op === 'create' ? await admin.create(body) : await admin.update(body);
    expect(res.status).toBe(400);
    expect(res.body.error).toMatch(new RegExp(`^${field}\\b`));
  });

  test.each([
    ['list', '?org_id=abc', 'GET', 'org_id'],
    ['list', '', 'GET', 'org_id'],
    ['delete', '?org_id=1', 'DELETE', 'id'],
    ['delete', '?id=1', 'DELETE', 'org_id'],
    ['delete', '?id=-1&org_id=1', 'DELETE', 'id'],
  ])('%s with query %p: 400 naming the field', async (_op, query, method, field) => {
    const res = await stack.request(`/api/org-api-keys${query}`, { method, headers: { authorization: await admin.bearer('acme-admin') } });
    expect(res.status).toBe(400);
    expect(res.body.error).toMatch(new RegExp(`^${field}\\b`));
  });

  test('a body that is not JSON, or empty, is 400', async () => {
    expect((await admin.create('{not json')).status).toBe(400);
    expect((await admin.update('')).status).toBe(400);
  });
});
