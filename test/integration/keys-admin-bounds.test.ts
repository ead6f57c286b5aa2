/**
 * Key management over HTTP, the bounds of docs/decisions.md#api-keys: for create and update, each
 * property just inside is accepted and just outside is a 400 naming the field; so are a missing or
 * invalid org_id or id (bodies and queries) and bodies that are not JSON.
 */
import { beforeAll, describe, expect, test } from '@jest/globals';
import { describeWithStack } from '../support/describe-with-stack.js';
import { keyAdminCalls } from '../support/key-admin.js';

describeWithStack('key management over HTTP: bounds', ({ stack, admin }) => {
  const { isoIn, newKey } = keyAdminCalls({ stack, admin });

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
      const res = await stack.request(`/api/org-api-keys${query}`, {
        method,
        headers: { authorization: await admin.bearer('acme-admin') },
      });
      expect(res.status).toBe(400);
      expect(res.body.error).toMatch(new RegExp(`^${field}\\b`));
    });

    test('a body that is not JSON, or empty, is 400', async () => {
      expect((await admin.create('{not json')).status).toBe(400);
      expect((await admin.update('')).status).toBe(400);
    });
  });
});
