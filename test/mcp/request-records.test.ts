/**
 * What an MCP request leaves in the audit log agrees with what it was answered: a `tools/call` sent
 * as a notification (no `id`) is answered 202 with no body and runs no tool, and its record says 202
 * (docs/mcp.md, "Notifications"); refusals of the `Idempotency-Key` (409, 422) are counted and
 * audited as the tool's call; the record's `request_id` is the answer's (the caller's
 * `x-request-id` when valid).
 */
import { afterAll, beforeAll, describe, expect, test } from '@jest/globals';
import { auditOfKey, createTestKey, roomInMinute, tokensOfKey, UNLIMITED, windowCounts } from '../support/keys.js';
import { startStack, type Stack } from '../support/local-stack.js';
import { postMcp, TOOL_SCOPES } from '../support/mcp.js';

let stack: Stack;
beforeAll(async () => {
  stack = await startStack();
});
afterAll(() => stack?.stop());

const createCall = (id: number | undefined, args: Record<string, unknown>) => ({
  jsonrpc: '2.0',
  ...(id === undefined ? {} : { id }),
  method: 'tools/call',
  params: { name: 'create_session', arguments: args },
});

describe('a tools/call sent as a notification (no id)', () => {
  test('answered 202 with no body; no tool runs; counted once and audited as answered: 202', async () => {
    roomInMinute(stack);
    const key = await createTestKey(stack, { ...UNLIMITED, mcp_scopes: TOOL_SCOPES });
    const reply = await postMcp(stack, createCall(undefined, { game_id: 101 }), { 'x-api-key': key.raw });
    expect(reply.status).toBe(202);
    expect(reply.body ?? '').toBe('');
    expect(await tokensOfKey(stack, key.record.id)).toEqual([]);
    expect(await windowCounts(stack, key.record)).toEqual({ minute: 1, day: 1 });
    expect((await auditOfKey(stack, key.record.id)).map((r) => [r.action, r.status, r.game_id, r.token_prefix])).toEqual([
      ['mcp:tools/call:create_session', 202, null, null],
    ]);
  });

  test('with an Idempotency-Key it claims nothing: the same key and arguments in a request then run (no empty replay)', async () => {
    const key = await createTestKey(stack, { ...UNLIMITED, mcp_scopes: TOOL_SCOPES });
    const headers = { 'x-api-key': key.raw, 'idempotency-key': 'notified-first' };
    expect((await postMcp(stack, createCall(undefined, { game_id: 101 }), headers)).status).toBe(202);
    const request = await postMcp(stack, createCall(7, { game_id: 101 }), headers);
    expect(request.status).toBe(200);
    expect(request.headers.get('idempotent-replayed')).toBeNull();
    expect(request.body).toMatchObject({ id: 7, result: { structuredContent: { token: expect.any(String) } } });
  });

  test('an unknown tool as a notification: 202, audited 202', async () => {
    const key = await createTestKey(stack, { ...UNLIMITED, mcp_scopes: TOOL_SCOPES });
    const reply = await postMcp(stack, { jsonrpc: '2.0', method: 'tools/call', params: { name: 'nope' } }, { 'x-api-key': key.raw });
    expect(reply.status).toBe(202);
    expect((await auditOfKey(stack, key.record.id)).map((r) => [r.action, r.status])).toEqual([['mcp:tools/call:unknown', 202]]);
  });
});

describe('Idempotency-Key refusals over MCP are calls of the key', () => {
  test('another body: 422, counted and audited as the tool’s call; a key out of quota gets 429 instead', async () => {
    roomInMinute(stack);
    const key = await createTestKey(stack, { rate_limit_per_minute: 2, mcp_scopes: TOOL_SCOPES });
    const headers = { 'x-api-key': key.raw, 'idempotency-key': 'mcp-other-body' };
    expect((await postMcp(stack, createCall(1, { game_id: 101 }), headers)).status).toBe(200);
    expect((await postMcp(stack, createCall(2, { game_id: 102 }), headers)).status).toBe(422);
    expect(await windowCounts(stack, key.record)).toEqual({ minute: 2, day: 2 });
    expect((await postMcp(stack, createCall(3, { game_id: 102 }), headers)).status).toBe(429);
    expect((await auditOfKey(stack, key.record.id)).map((r) => [r.action, r.status])).toEqual([
      ['mcp:tools/call:create_session', 200],
      ['mcp:tools/call:create_session', 422],
      ['mcp:tools/call:create_session', 429],
    ]);
  });
});

describe('one request id over MCP', () => {
  test('the audit record of a tool call carries the caller’s x-request-id, as the answer does', async () => {
    const key = await createTestKey(stack, { ...UNLIMITED, mcp_scopes: TOOL_SCOPES });
    const id = `agent-${Math.random().toString(36).slice(2)}`;
    const reply = await postMcp(stack, createCall(1, { game_id: 101 }), { 'x-api-key': key.raw, 'x-request-id': id });
    expect(reply.status).toBe(200);
    expect(reply.headers.get('x-request-id')).toBe(id);
    expect((await auditOfKey(stack, key.record.id)).map((r) => [r.action, r.request_id])).toEqual([['mcp:tools/call:create_session', id]]);
  });
});
