/**
 * Small gaps an attacker looks for: 401s of key and bearer routes
 * name their scheme (`WWW-Authenticate`); the local front answers only requests addressed to this
 * machine (DNS rebinding); the data folder and the embedded database files are private to their
 * owner; prototype names in a URL are plain misses (404, not 500); numbers out of a double's range
 * and bodies in another charset than UTF-8 are refused (400) instead of being stored as something else.
 */
import { afterAll, beforeAll, describe, expect, test } from '@jest/globals';
import { chmodSync, mkdirSync, mkdtempSync, readdirSync, rmSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { request as httpRequest } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { protectDataDir } from '../../infra/local/service.js';
import { adminApi } from '../support/admin-api.js';
import { createTestKey, type TestKey } from '../support/keys.js';
import { INITIALIZE, postMcp } from '../support/mcp.js';
import { capturedLogs, startStack, type Stack } from '../support/local-stack.js';

let stack: Stack;
let key: TestKey;
beforeAll(async () => {
  stack = await startStack();
  key = await createTestKey(stack);
});
afterAll(() => stack.stop());

/** A raw request with any Host header (fetch does not let one set it). */
function rawGet(path: string, headers: Record<string, string>): Promise<{ status: number; body: string }> {
  const { port } = new URL(stack.baseUrl);
  return new Promise((resolve, reject) => {
    const req = httpRequest({ host: '127.0.0.1', port, path, method: 'GET', headers }, (res) => {
      let body = '';
      res.on('data', (c: Buffer) => (body += c.toString('utf8')));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
    });
    req.on('error', reject);
    req.end();
  });
}

describe('WWW-Authenticate on every 401', () => {
  test('key routes name the API key header; admin routes the Bearer scheme', async () => {
    const keyChallenge = 'ApiKey realm="game-session-token-service", header="x-api-key"';
    for (const action of ['create-session', 'revoke-session']) {
      for (const headers of [{}, { 'x-api-key': `dpk_${'0'.repeat(40)}` }] as Record<string, string>[]) {
        const res = await stack.post(action, { game_id: 101 }, headers);
        expect(res.status).toBe(401);
        expect(res.headers.get('www-authenticate')).toBe(keyChallenge);
      }
    }
    const none = await stack.request('/api/org-api-keys?org_id=1');
    expect(none.status).toBe(401);
    expect(none.headers.get('www-authenticate')).toBe('Bearer realm="game-session-token-service"');
    const bad = await stack.request('/api/org-api-keys?org_id=1', { headers: { authorization: 'Bearer not.a.jwt' } });
    expect(bad.status).toBe(401);
    expect(bad.headers.get('www-authenticate')).toBe('Bearer realm="game-session-token-service", error="invalid_token"');
    // Not on other refusals.
    const forbidden = await adminApi(stack).list(2);
    expect(forbidden.status).toBe(403);
    expect(forbidden.headers.get('www-authenticate')).toBeNull();
  });
});

describe('X-Content-Type-Options: nosniff on every answer', () => {
  test("JSON and its refusals, OpenAPI, health, MCP, pages, redirects and the front's own refusals", async () => {
    const answers = {
      success: await stack.post('create-session', { game_id: 101 }, { 'x-api-key': key.raw }),
      refusal: await stack.request('/api/org-api-keys?action=validate-session&token=x'),
      unauthenticated: await stack.post('create-session', { game_id: 101 }),
      routing: await stack.request('/api/nowhere'),
      openapi: await stack.request('/api/openapi.json'),
      health: await stack.request('/api/health'),
      mcp: await postMcp(stack, INITIALIZE, { 'x-api-key': (await createTestKey(stack, { mcp_scopes: ['mcp:sessions:write'] })).raw }),
      mcpRefused: await postMcp(stack, INITIALIZE),
      page: await stack.request('/play/game/102'),
      redirect: await stack.request('/play/game/102/', { redirect: 'manual' }),
      tooLarge: await stack.post('consume-session', JSON.stringify({ token: 'x'.repeat(2 * 1024 * 1024) })),
    };
    const statuses = Object.fromEntries(Object.entries(answers).map(([what, res]) => [what, res.status]));
    expect(statuses).toEqual({
      success: 200,
      refusal: 400,
      unauthenticated: 401,
      routing: 404,
      openapi: 200,
      health: 200,
      mcp: 200,
      mcpRefused: 401,
      page: 200,
      redirect: 301,
      tooLarge: 413,
    });
    const sniffing = Object.entries(answers).filter(([, res]) => res.headers.get('x-content-type-options') !== 'nosniff');
    expect(sniffing.map(([what]) => what)).toEqual([]);
  });
});

describe('the local front keeps an idle connection longer than fetch does', () => {
  test('Keep-Alive: timeout=65, so fetch (hint minus 1 s) closes first and never reuses a dropped one', async () => {
    const res = await stack.request('/api/health');
    expect(res.headers.get('keep-alive')).toBe('timeout=65');
  });
});

describe('the local front answers only requests addressed to this machine', () => {
  test.each([
    ['Host of another name', { host: 'rebind.attacker.example' }],
    ['Host of another name with the port', { host: 'rebind.attacker.example:3000' }],
    ['Origin of another site', { host: 'localhost', origin: 'http://rebind.attacker.example' }],
    ['Origin null', { host: 'localhost', origin: 'null' }],
  ])('%s: 403', async (_name, headers) => {
    const res = await rawGet('/api/org-api-keys?action=validate-session&token=x', headers);
    expect(res.status).toBe(403);
    expect(JSON.parse(res.body)).toMatchObject({ success: false });
  });

  test.each([['localhost'], ['127.0.0.1'], ['[::1]'], ['app.localhost']])('Host %s passes', async (host) => {
    const { port } = new URL(stack.baseUrl);
    const res = await rawGet(`/api/org-api-keys?action=validate-session&token=x`, {
      host: `${host}:${port}`,
      origin: `http://${host}:${port}`,
    });
    expect(res.status).toBe(400);
  });
});

describe('prototype names in URLs are plain misses', () => {
  test.each(['constructor', '__proto__', 'toString', 'hasOwnProperty'])('/demo-game/%s: 404', async (name) => {
    const from = capturedLogs.length;
    const res = await stack.request(`/demo-game/${name}`);
    expect(res.status).toBe(404);
    expect(capturedLogs.slice(from).join('')).not.toMatch(/failed|ENOENT/);
  });

  test('a cookie named after a prototype property is a cookie like any other', async () => {
    const res = await stack.request('/play/game/102', { headers: { cookie: '__proto__=x; constructor=y; toString=z' } });
    expect(res.status).toBe(200);
  });
});

describe('the data folder is private', () => {
  test('the running stack: folder and database 0700, every file readable by its owner only', () => {
    expect(statSync(stack.dataDir).mode & 0o777).toBe(0o700);
    expect(statSync(join(stack.dataDir, 'dynamodb')).mode & 0o777).toBe(0o700);
    const files = readdirSync(stack.dataDir, { recursive: true, withFileTypes: true }).filter((e) => e.isFile());
    expect(files.length).toBeGreaterThan(3);
    for (const f of files)
      expect([join(f.parentPath, f.name), statSync(join(f.parentPath, f.name)).mode & 0o077]).toEqual([join(f.parentPath, f.name), 0]);
  });

  test('a folder of an earlier run (0755, database files 0644) is closed at start', () => {
    const dir = mkdtempSync(join(tmpdir(), 'gsts-perm-'));
    try {
      mkdirSync(join(dir, 'dynamodb', 'tokens'), { recursive: true });
      writeFileSync(join(dir, 'dynamodb', 'tokens', '000001.ldb'), 'x', { mode: 0o644 });
      chmodSync(dir, 0o755);
      chmodSync(join(dir, 'dynamodb'), 0o755);
      chmodSync(join(dir, 'dynamodb', 'tokens', '000001.ldb'), 0o644);
      protectDataDir(dir);
      expect(statSync(dir).mode & 0o777).toBe(0o700);
      expect(statSync(join(dir, 'dynamodb')).mode & 0o777).toBe(0o700);
      expect(statSync(join(dir, 'dynamodb', 'tokens')).mode & 0o777).toBe(0o700);
      expect(statSync(join(dir, 'dynamodb', 'tokens', '000001.ldb')).mode & 0o777).toBe(0o600);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  test('a file listed but gone by its chmod (a running database rotated it) is skipped; the others are closed', () => {
    const dir = mkdtempSync(join(tmpdir(), 'gsts-perm-'));
    try {
      mkdirSync(join(dir, 'dynamodb', 'tokens'), { recursive: true });
      writeFileSync(join(dir, 'dynamodb', 'tokens', '000002.ldb'), 'x', { mode: 0o644 });
      chmodSync(join(dir, 'dynamodb', 'tokens', '000002.ldb'), 0o644);
      // Listed, and gone when closed: its chmod follows the link to a file that no longer exists.
      symlinkSync(join(dir, 'dynamodb', 'tokens', 'MANIFEST-000001'), join(dir, 'dynamodb', 'tokens', 'CURRENT'));
      protectDataDir(dir);
      expect(statSync(join(dir, 'dynamodb', 'tokens')).mode & 0o777).toBe(0o700);
      expect(statSync(join(dir, 'dynamodb', 'tokens', '000002.ldb')).mode & 0o777).toBe(0o600);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('input the service would store as something else', () => {
  test('metadata with a number beyond a double (1e400): 400, nothing minted', async () => {
    for (const body of ['{"game_id":101,"metadata":{"n":1e400}}', '{"game_id":101,"metadata":{"deep":[{"n":-1e999}]}}']) {
      const res = await stack.post('create-session', body, { 'x-api-key': key.raw });
      expect(res.status).toBe(400);
      expect(res.body).toMatchObject({ success: false, error: expect.stringMatching(/^metadata: .*finite/) });
    }
    const fine = await stack.post('create-session', '{"game_id":101,"metadata":{"n":1e300}}', { 'x-api-key': key.raw });
    expect(fine.status).toBe(200);
  });

  test.each(['application/json; charset=utf-16', 'application/json;charset="UTF-16LE"', 'application/json; charset=latin1'])(
    'Content-Type %s: 400 with the envelope',
    async (contentType) => {
      const res = await stack.post('create-session', '{"game_id":101}', { 'x-api-key': key.raw, 'content-type': contentType });
      expect(res.status).toBe(400);
      expect(res.body).toMatchObject({ success: false, error: expect.stringMatching(/charset/i) });
      // The same on a route without a key.
      const consume = await stack.post('consume-session', '{"token":"x"}', { 'content-type': contentType });
      expect(consume.status).toBe(400);
    },
  );

  test.each(['application/json; charset=utf-8', 'application/json; charset=UTF8', 'application/json'])(
    'Content-Type %s passes',
    async (contentType) => {
      const res = await stack.post('create-session', '{"game_id":101}', { 'x-api-key': key.raw, 'content-type': contentType });
      expect(res.status).toBe(200);
    },
  );
});
