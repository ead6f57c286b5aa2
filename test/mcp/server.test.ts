/**
 * The MCP server at /api/mcp through the SDK's own client (StreamableHTTPClientTransport, the key in
 * `requestInit.headers`): the protocol (stateless JSON answers, 405s, 401, malformed messages
 * counted and audited once the key is authenticated) and deny-by-default scopes (tools/list shows
 * only the key's tools; a call outside them is a tool error). The tools themselves:
 * server-tools.test.ts.
 */
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { afterAll, beforeAll, describe, expect, test } from '@jest/globals';
import { auditOfKey, createTestKey, UNLIMITED, type TestKey } from '../support/keys.js';
import { startStack, type Stack } from '../support/local-stack.js';
import { ALL_TOOLS, callTool, connectMcp, INITIALIZE, MCP_PATH, postMcp, textOf, TOOL_SCOPES } from '../support/mcp.js';
import { stopAll } from '../support/teardown.js';

let stack: Stack;
let all: TestKey;
let client: Client;

beforeAll(async () => {
  stack = await startStack();
  all = await createTestKey(stack, { ...UNLIMITED, mcp_scopes: TOOL_SCOPES });
  client = await connectMcp(stack, all.raw);
});
// Each step runs even when the one before fails (or never started): no server outlives the file.
afterAll(() =>
  stopAll(
    () => client?.close(),
    () => stack?.stop(),
  ),
);

const names = async (c: Client) => (await c.listTools()).tools.map((t) => t.name);

describe('protocol', () => {
  test('initialize: the server names itself and offers tools', () => {
    expect(client.getServerVersion()).toMatchObject({ name: 'game-session-token-service', version: '1.0.0' });
    expect(client.getServerCapabilities()?.tools).toBeDefined();
    expect(client.getInstructions()).toMatch(/organization of the API key/);
  });

  test('the key may also come as Authorization: Bearer dpk_...', async () => {
    const viaBearer = await connectMcp(stack, all.raw, 'bearer');
    expect(await names(viaBearer)).toEqual(ALL_TOOLS);
    await viaBearer.close();
  });

  test('stateless JSON answers: no session id, application/json', async () => {
    const res = await postMcp(stack, INITIALIZE, { 'x-api-key': all.raw });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^application\/json/);
    expect(res.headers.get('mcp-session-id')).toBeNull();
    expect(res.body).toMatchObject({ jsonrpc: '2.0', id: 1, result: { serverInfo: { name: 'game-session-token-service' } } });
  });

  test.each(['GET', 'DELETE'])('%s on the endpoint is 405 (no SSE stream, no session to end)', async (method) => {
    const res = await stack.request(MCP_PATH, { method, headers: { 'x-api-key': all.raw, accept: 'text/event-stream' } });
    expect(res.status).toBe(405);
  });

  test('a request without a credential is 401', async () => {
    const res = await postMcp(stack, INITIALIZE);
    expect(res.status).toBe(401);
    expect(res.body).toEqual({
      success: false,
      error: 'Missing API key (x-api-key header)',
      code: expect.any(String),
      request_id: expect.any(String),
    });
  });

  test.each([
    ['a batch', [INITIALIZE], {}, /JSON object/],
    ['not JSON-RPC 2.0', { ...INITIALIZE, jsonrpc: '1.0' }, {}, /^jsonrpc/],
    ['an Accept without text/event-stream', INITIALIZE, { accept: 'application/json' }, /Accept/],
    ['an unknown protocol version', INITIALIZE, { 'mcp-protocol-version': '1999-01-01' }, /MCP-Protocol-Version/],
  ])('%s is 400 once the key is authenticated: counted and audited like any call of the key', async (_case, body, headers, message) => {
    const res = await postMcp(stack, body, { 'x-api-key': all.raw, ...headers });
    expect(res.status).toBe(400);
    expect(res.body.error).toMatch(message);
    expect(res.headers.get('ratelimit')).toMatch(/^"minute";r=\d+/);
    const unknown = await postMcp(stack, body, { 'x-api-key': `dpk_${'0'.repeat(40)}`, ...headers });
    expect(unknown.status).toBe(401);
  });
});

describe('scopes are deny-by-default', () => {
  test('a key with no MCP scope is refused at the endpoint: 403, counted and audited', async () => {
    const none = await createTestKey(stack, UNLIMITED);
    await expect(connectMcp(stack, none.raw)).rejects.toMatchObject({ code: 403, message: expect.stringMatching(/no MCP scope/) });
    const res = await postMcp(stack, INITIALIZE, { 'x-api-key': none.raw });
    expect(res.status).toBe(403);
    expect(res.headers.get('ratelimit')).toMatch(/^"minute";r=\d+/);
    const audit = await auditOfKey(stack, none.record.id);
    expect(audit.map((r) => [r.action, r.status])).toEqual([
      ['mcp:initialize', 403],
      ['mcp:initialize', 403],
    ]);
  });

  test('sessions only: tools/list shows exactly the two session tools', async () => {
    const key = await createTestKey(stack, { ...UNLIMITED, mcp_scopes: ['mcp:sessions:write'] });
    const c = await connectMcp(stack, key.raw);
    expect(await names(c)).toEqual(['create_session', 'revoke_session']);
    await c.close();
  });

  test('read-only catalog scopes: list and get, no update', async () => {
    const key = await createTestKey(stack, { ...UNLIMITED, mcp_scopes: ['mcp:games:read', 'mcp:streams:read'] });
    const c = await connectMcp(stack, key.raw);
    expect(await names(c)).toEqual(['list_games', 'get_game', 'list_streams', 'get_stream']);
    await c.close();
  });

  test('a scope of another part of the platform is valid but shows no tool here', async () => {
    const key = await createTestKey(stack, { ...UNLIMITED, mcp_scopes: ['mcp:vouchers:read'] });
    const c = await connectMcp(stack, key.raw);
    expect(await names(c)).toEqual([]);
    await c.close();
  });

  test('every scope: every tool, each with object input and output schemas', async () => {
    const { tools } = await client.listTools();
    expect(tools.map((t) => t.name)).toEqual(ALL_TOOLS);
    for (const tool of tools) {
      expect(tool.inputSchema.type).toBe('object');
      expect(tool.outputSchema?.type).toBe('object');
      expect(tool.description).toBeTruthy();
    }
  });

  test('calling a tool outside the key’s scopes is a tool error naming the missing scope, audited 403', async () => {
    const key = await createTestKey(stack, { ...UNLIMITED, mcp_scopes: ['mcp:sessions:write'] });
    const c = await connectMcp(stack, key.raw);
    const result = await callTool(c, 'update_game', { game_id: 102, require_session_token: true });
    expect(result.isError).toBe(true);
    expect(textOf(result)).toBe('update_game requires the MCP scope mcp:games:write, which this API key does not have');
    expect((await stack.services.stores.catalog.getPlayable('game', 102))?.require_session_token).toBe(false);
    const audit = await auditOfKey(stack, key.record.id);
    expect(audit.find((r) => r.action === 'mcp:tools/call:update_game')?.status).toBe(403);
    await c.close();
  });

  test('an unknown tool is a tool error', async () => {
    const result = await callTool(client, 'delete_everything');
    expect(result.isError).toBe(true);
    expect(textOf(result)).toMatch(/delete_everything not found/);
  });
});
