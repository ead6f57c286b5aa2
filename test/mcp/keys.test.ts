/**
 * The API key behind MCP requests: every HTTP request is one key-authenticated call (counted once in
 * both rate windows, audited once with its method or tool), the rate limit ends requests with 429,
 * and a revoked, expired, deleted or re-scoped key acts on the very next request of a connected client.
 */
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { afterAll, beforeAll, describe, expect, test } from '@jest/globals';
import { adminApi, type AdminApi } from '../support/admin-api.js';
import { auditOfKey, createTestKey, startOfNextMinute, tokensOfKey, UNLIMITED, windowCounts } from '../support/keys.js';
import { startStack, type Stack } from '../support/local-stack.js';
import { callTool, connectMcp, INITIALIZE, postMcp, TOOL_SCOPES } from '../support/mcp.js';
import { stopAll } from '../support/teardown.js';

let stack: Stack;
let admin: AdminApi;
const clients: Client[] = [];

beforeAll(async () => {
  stack = await startStack();
  admin = adminApi(stack);
});
// Each step runs even when the one before fails (or never started): no server outlives the file.
afterAll(() =>
  stopAll(
    () => Promise.all(clients.map((c) => c.close())),
    () => stack?.stop(),
  ),
);

async function connect(raw: string): Promise<Client> {
  const client = await connectMcp(stack, raw);
  clients.push(client);
  return client;
}

describe('metering: one HTTP request, one counted and audited call', () => {
  test('initialize, the initialized notification, tools/list and a tool call each count once in both windows', async () => {
    const key = await createTestKey(stack, { rate_limit_per_minute: 1000, mcp_scopes: TOOL_SCOPES });
    startOfNextMinute(stack);
    const client = await connect(key.raw);
    expect(await windowCounts(stack, key.record)).toEqual({ minute: 2, day: 2 });
    await client.listTools();
    expect(await windowCounts(stack, key.record)).toEqual({ minute: 3, day: 3 });
    const created = await callTool(client, 'create_session', { game_id: 101 });
    const token = (created.structuredContent as { token: string }).token;
    expect(await windowCounts(stack, key.record)).toEqual({ minute: 4, day: 4 });
    await callTool(client, 'get_game', { game_id: 'x' });
    await callTool(client, 'get_game', { game_id: 301 });
    expect(await windowCounts(stack, key.record)).toEqual({ minute: 6, day: 6 });

    const audit = (await auditOfKey(stack, key.record.id)).sort((a, b) => (a.at < b.at ? -1 : a.at > b.at ? 1 : 0));
    expect(audit.map((r) => [r.action, r.status])).toEqual([
      ['mcp:initialize', 200],
      // A notification is answered 202 (no body), and its record says so (docs/mcp.md, "Notifications").
      ['mcp:notifications/initialized', 202],
      ['mcp:tools/list', 200],
      ['mcp:tools/call:create_session', 200],
      ['mcp:tools/call:get_game', 400],
      ['mcp:tools/call:get_game', 404],
    ]);
    expect(audit[3]).toMatchObject({ game_id: 101, stream_id: null, token_prefix: token.slice(0, 8), key_prefix: key.raw.slice(0, 8) });
    expect(audit[5]).toMatchObject({ game_id: 301 });
  });

  test('every answer to a key-authenticated request carries the rate-limit headers', async () => {
    const key = await createTestKey(stack, { rate_limit_per_minute: 50, mcp_scopes: ['mcp:games:read'] });
    startOfNextMinute(stack);
    const res = await postMcp(stack, INITIALIZE, { 'x-api-key': key.raw });
    expect(res.status).toBe(200);
    expect(res.headers.get('ratelimit-policy')).toBe('"minute";q=50;w=60, "day";q=10000;w=86400');
    expect(res.headers.get('ratelimit')).toMatch(/^"minute";r=49;t=\d+$/);
  });
});

describe('rate limits through MCP', () => {
  test('an exhausted window ends the request with 429 and Retry-After; the refused token is undone', async () => {
    const key = await createTestKey(stack, { rate_limit_per_minute: 4, mcp_scopes: ['mcp:sessions:write'] });
    startOfNextMinute(stack);
    const client = await connect(key.raw); // 2 calls
    await client.listTools(); // 3
    expect((await callTool(client, 'create_session', { game_id: 101 })).isError).toBeFalsy(); // 4

    await expect(callTool(client, 'create_session', { game_id: 101 })).rejects.toMatchObject({
      code: 429,
      message: expect.stringMatching(/Rate limit exceeded \(per minute\)/),
    });
    const raw = await postMcp(stack, { jsonrpc: '2.0', id: 9, method: 'tools/list' }, { 'x-api-key': key.raw });
    expect(raw.status).toBe(429);
    expect(Number(raw.headers.get('retry-after'))).toBeGreaterThan(0);
    expect(raw.headers.get('ratelimit')).toMatch(/^"minute";r=0;t=\d+$/);

    expect(await tokensOfKey(stack, key.record.id)).toHaveLength(1);
    expect(await windowCounts(stack, key.record)).toMatchObject({ minute: 4, day: 4 });

    // The next minute, the same client goes on.
    startOfNextMinute(stack);
    expect((await callTool(client, 'create_session', { game_id: 101 })).isError).toBeFalsy();
    expect(await tokensOfKey(stack, key.record.id)).toHaveLength(2);
  });

  test('a refused update_game is undone: the setting stays as it was', async () => {
    const key = await createTestKey(stack, { rate_limit_per_minute: 3, mcp_scopes: ['mcp:games:write'] });
    startOfNextMinute(stack);
    const client = await connect(key.raw); // 2 calls
    expect((await callTool(client, 'update_game', { game_id: 102, name: 'Renamed once' })).isError).toBeFalsy(); // 3
    await expect(
      callTool(client, 'update_game', { game_id: 102, name: 'Renamed twice', require_session_token: true }),
    ).rejects.toMatchObject({
      code: 429,
    });
    expect(await stack.services.stores.catalog.getPlayable('game', 102)).toMatchObject({
      name: 'Renamed once',
      require_session_token: false,
    });
    await stack.services.stores.catalog.updatePlayable('game', 102, { name: 'Acme Memory (open)' });
  });

  test('an update_game or update_stream audit record keeps the fields set and their before and after, as REST does', async () => {
    const key = await createTestKey(stack, { ...UNLIMITED, mcp_scopes: ['mcp:games:write', 'mcp:streams:write'] });
    const client = await connect(key.raw);
    const game = await stack.services.stores.catalog.getPlayable('game', 102);
    const args = { game_id: 102, name: 'Audited rename', require_session_token: game!.require_session_token };
    expect((await callTool(client, 'update_game', args)).isError).toBeFalsy();
    expect((await callTool(client, 'update_stream', { stream_id: 202, require_session_token: true })).isError).toBeFalsy();
    const audit = await auditOfKey(stack, key.record.id);
    expect(audit.find((r) => r.action === 'mcp:tools/call:update_game')).toMatchObject({
      status: 200,
      game_id: 102,
      changes: ['name', 'require_session_token'],
      diff: { name: { before: game!.name, after: 'Audited rename' } },
    });
    expect(audit.find((r) => r.action === 'mcp:tools/call:update_stream')).toMatchObject({
      stream_id: 202,
      changes: ['require_session_token'],
      diff: { require_session_token: { before: false, after: true } },
    });
    await stack.services.stores.catalog.updatePlayable('game', 102, { name: game!.name });
    await stack.services.stores.catalog.updatePlayable('stream', 202, { require_session_token: false });
  });

  test('the day window refuses the same way', async () => {
    const key = await createTestKey(stack, { rate_limit_per_minute: 100, rate_limit_per_day: 3, mcp_scopes: ['mcp:games:read'] });
    const client = await connect(key.raw);
    await client.listTools();
    await expect(client.listTools()).rejects.toMatchObject({ code: 429, message: expect.stringMatching(/per day/) });
  });
});

describe('key lifecycle acts on the very next request', () => {
  test('revoked: 401 at once; reactivated: the same client works again', async () => {
    const key = await createTestKey(stack, { ...UNLIMITED, mcp_scopes: ['mcp:games:read'] });
    const client = await connect(key.raw);
    expect((await callTool(client, 'list_games')).isError).toBeFalsy();
    expect((await admin.update({ id: key.record.id, org_id: 1, is_active: false })).status).toBe(200);
    await expect(callTool(client, 'list_games')).rejects.toMatchObject({
      code: 401,
      message: expect.stringMatching(/API key has been revoked/),
    });
    expect((await admin.update({ id: key.record.id, org_id: 1, is_active: true })).status).toBe(200);
    expect((await callTool(client, 'list_games')).isError).toBeFalsy();
  });

  test('expired and deleted keys are 401', async () => {
    const expiring = await createTestKey(stack, {
      ...UNLIMITED,
      mcp_scopes: ['mcp:games:read'],
      expires_at: new Date(stack.clock.now() + 60_000).toISOString(),
    });
    const client = await connect(expiring.raw);
    stack.clock.advance(61_000);
    await expect(client.listTools()).rejects.toMatchObject({ code: 401, message: expect.stringMatching(/API key has expired/) });

    const doomed = await createTestKey(stack, { ...UNLIMITED, mcp_scopes: ['mcp:games:read'] });
    const other = await connect(doomed.raw);
    expect((await admin.remove(doomed.record.id, 1)).status).toBe(200);
    await expect(other.listTools()).rejects.toMatchObject({ code: 401, message: expect.stringMatching(/Invalid API key/) });
  });

  test('a key of a Free organization is refused (403, Business tier or higher)', async () => {
    const free = await createTestKey(stack, { ...UNLIMITED, mcp_scopes: TOOL_SCOPES }, { org_id: 3, tier: 'free' });
    await expect(connectMcp(stack, free.raw)).rejects.toMatchObject({
      code: 403,
      message: expect.stringMatching(/Business tier or higher required/),
    });
  });

  test('an admin’s bearer JWT is not an API key', async () => {
    const res = await postMcp(stack, INITIALIZE, { authorization: await admin.bearer('acme-admin') });
    expect(res.status).toBe(401);
  });
});

describe('MCP scopes: set at creation, edited by PATCH without rotating the key, names validated', () => {
  test('a key created with scopes works over MCP at once; unknown scope names are refused on create and update', async () => {
    const created = await admin.create({ org_id: 1, name: 'agent', mcp_scopes: ['mcp:games:read', 'mcp:games:read'] });
    expect(created.status).toBe(200);
    expect(created.body.data.mcp_scopes).toEqual(['mcp:games:read']);
    const client = await connect(created.body.data.key);
    expect((await client.listTools()).tools.map((t) => t.name)).toEqual(['list_games', 'get_game']);

    const bad = await admin.create({ org_id: 1, name: 'agent', mcp_scopes: ['mcp:games:read', 'mcp:sessions:read'] });
    expect(bad.status).toBe(400);
    expect(bad.body.error).toMatch(/^mcp_scopes\.1\b/);
    const badUpdate = await admin.update({ id: created.body.data.id, org_id: 1, mcp_scopes: ['mcp:games:delete'] });
    expect(badUpdate.status).toBe(400);
    expect(badUpdate.body.error).toMatch(/^mcp_scopes\.0\b/);
    expect((await client.listTools()).tools.map((t) => t.name)).toEqual(['list_games', 'get_game']);
  });

  test('PATCH mcp_scopes changes what the same key (same client) sees on its next request; [] closes the endpoint', async () => {
    const key = await createTestKey(stack, { ...UNLIMITED, mcp_scopes: ['mcp:sessions:write'] });
    const client = await connect(key.raw);
    expect((await client.listTools()).tools).toHaveLength(2);

    const widened = await admin.update({ id: key.record.id, org_id: 1, mcp_scopes: ['mcp:sessions:write', 'mcp:reports:read'] });
    expect(widened.status).toBe(200);
    expect(widened.body.data.key_prefix).toBe(key.raw.slice(0, 8));
    expect((await client.listTools()).tools.map((t) => t.name)).toEqual(['create_session', 'revoke_session', 'get_session_report']);

    expect((await admin.update({ id: key.record.id, org_id: 1, mcp_scopes: [] })).status).toBe(200);
    await expect(client.listTools()).rejects.toMatchObject({ code: 403, message: expect.stringMatching(/no MCP scope/) });
  });
});
