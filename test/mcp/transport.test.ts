/**
 * Transport hygiene of /api/mcp: a browser `Origin` outside the
 * allow-list (`MCP_ALLOWED_ORIGINS`) is refused before anything else (403, envelope, nothing
 * counted); requests without `Origin` (server-side clients) pass; every 401 carries a
 * `WWW-Authenticate` challenge naming the API key, so that a client asks for a key instead of
 * starting an OAuth flow; the key is authenticated before the request is validated, so a bad
 * request of a valid key is counted and audited, and of an unknown key is 401.
 *
 * The origins are loopback ones: the local front itself refuses any other (DNS rebinding of the dev server).
 */
import { afterAll, beforeAll, describe, expect, test } from '@jest/globals';
import { auditOfKey, createTestKey, type TestKey } from '../support/keys.js';
import { startStack, type Stack } from '../support/local-stack.js';
import { INITIALIZE, MCP_HEADERS, postMcp, TOOL_SCOPES } from '../support/mcp.js';
import { stopAll } from '../support/teardown.js';

const ALLOWED = 'http://localhost:5173';
const CHALLENGE = 'ApiKey realm="game-session-token-service", header="x-api-key"';

let stack: Stack;
let key: TestKey;
beforeAll(async () => {
  process.env.MCP_ALLOWED_ORIGINS = `${ALLOWED}, https://agent.example`;
  stack = await startStack();
  key = await createTestKey(stack, { mcp_scopes: TOOL_SCOPES });
});
afterAll(() =>
  stopAll(
    () => delete process.env.MCP_ALLOWED_ORIGINS,
    () => stack?.stop(),
  ),
);

describe('browser Origin allow-list', () => {
  test('an origin outside the list is refused (403, envelope) before the key is looked at, and nothing is counted', async () => {
    for (const origin of ['http://localhost:6666', 'http://127.0.0.1:5173', 'null']) {
      const res = await postMcp(stack, INITIALIZE, { 'x-api-key': key.raw, origin });
      expect(res.status).toBe(403);
      expect(res.body).toMatchObject({ success: false, error: expect.stringMatching(/origin/i) });
      expect(res.headers.get('ratelimit')).toBeNull();
    }
    // Without a key it is still 403, not 401: the origin is checked first.
    expect((await postMcp(stack, INITIALIZE, { origin: 'http://localhost:6666' })).status).toBe(403);
    expect(await auditOfKey(stack, key.record.id)).toEqual([]);
  });

  test('an allowed origin (any case) and no origin at all (a server-side client) pass', async () => {
    expect((await postMcp(stack, INITIALIZE, { 'x-api-key': key.raw, origin: ALLOWED })).status).toBe(200);
    expect((await postMcp(stack, INITIALIZE, { 'x-api-key': key.raw, origin: ALLOWED.toUpperCase() })).status).toBe(200);
    expect((await postMcp(stack, INITIALIZE, { 'x-api-key': key.raw })).status).toBe(200);
  });
});

describe('401 answers carry WWW-Authenticate', () => {
  test.each([
    ['no key', {}],
    ['an unknown key', { 'x-api-key': `dpk_${'0'.repeat(40)}` }],
    ['a malformed key', { 'x-api-key': 'dpk_nope' }],
    ['an unknown key as Bearer', { authorization: `Bearer dpk_${'0'.repeat(40)}` }],
  ])('%s', async (_name, headers) => {
    const res = await postMcp(stack, INITIALIZE, headers as Record<string, string>);
    expect(res.status).toBe(401);
    expect(res.headers.get('www-authenticate')).toBe(CHALLENGE);
    expect(res.body).toMatchObject({ success: false });
  });
});

describe('the key is authenticated before the request is validated', () => {
  test('an unknown key with a malformed body or headers: 401', async () => {
    const unknown = `dpk_${'1'.repeat(40)}`;
    for (const res of [
      await postMcp(stack, '{"jsonrpc":', { 'x-api-key': unknown }),
      await postMcp(stack, '[]', { 'x-api-key': unknown }),
      await postMcp(stack, INITIALIZE, { 'x-api-key': unknown, accept: 'application/json' }),
    ]) {
      expect(res.status).toBe(401);
    }
  });

  test('a valid key with a malformed body or headers: 400, counted and audited with RateLimit headers', async () => {
    const k = await createTestKey(stack, { mcp_scopes: TOOL_SCOPES });
    const replies = [
      await postMcp(stack, '{"jsonrpc":', { 'x-api-key': k.raw }),
      await postMcp(stack, INITIALIZE, { 'x-api-key': k.raw, accept: 'application/json' }),
      await stack.request('/api/mcp', {
        method: 'POST',
        headers: { ...MCP_HEADERS, 'content-type': 'application/json; charset=utf-16', 'x-api-key': k.raw },
        body: JSON.stringify(INITIALIZE),
      }),
    ];
    for (const res of replies) {
      expect(res.status).toBe(400);
      expect(res.body).toMatchObject({ success: false });
      expect(res.headers.get('ratelimit-policy')).not.toBeNull();
    }
    const records = await auditOfKey(stack, k.record.id);
    expect(records.map((r) => r.status)).toEqual([400, 400, 400]);
  });
});
