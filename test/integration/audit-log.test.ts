/**
 * The audit log as org admins read it: every key-management call with the admin's subject, key
 * usage from create-session, newest first, key filter, cursor pages.
 */
import { beforeAll, describe, expect, test } from '@jest/globals';
import type { AdminApi } from '../support/admin-api.js';
import { describeWithStack } from '../support/describe-with-stack.js';

describeWithStack('the audit log', ({ stack, admin }) => {
  const ENTRY_FIELDS = [
    'action',
    'actor',
    'at',
    'changes',
    'diff',
    'game_id',
    'key_id',
    'key_prefix',
    'org_id',
    'request_id',
    'source_ip',
    'status',
    'stream_id',
    'token_prefix',
    'user_agent',
    'webhook_id',
  ];

  /** Let the clock move on, so that records of consecutive calls have distinct times. */
  const tick = () => stack.clock.advance(1_000);

  async function readAll(params: Record<string, string | number>, as = 'acme-admin'): Promise<any[]> {
    const records: any[] = [];
    let cursor: string | null = null;
    do {
      const res = await admin.audit({ ...params, ...(cursor ? { cursor } : {}) }, as);
      expect(res.status).toBe(200);
      records.push(...res.body.data.records);
      cursor = res.body.data.next_cursor;
    } while (cursor);
    return records;
  }

  describe('audit log', () => {
    let keyId: number;
    let keyPrefix: string;
    let token: string;
    let requestIds: string[];

    beforeAll(async () => {
      const steps: Awaited<ReturnType<AdminApi['list']>>[] = [];
      const created = await admin.create({ org_id: 1, name: 'audited', allowed_game_ids: [101] });
      steps.push(created);
      keyId = created.body.data.id;
      keyPrefix = created.body.data.key_prefix;
      const key = created.body.data.key;
      tick();
      const session = await stack.post('create-session', { game_id: 101 }, { 'x-api-key': key, 'user-agent': 'partner-server/1.0' });
      token = session.body.data.token;
      steps.push(session);
      tick();
      steps.push(await stack.post('create-session', { game_id: 102 }, { 'x-api-key': key }));
      tick();
      steps.push(await admin.update({ id: keyId, org_id: 1, is_active: false }));
      tick();
      steps.push(await admin.update({ id: keyId, org_id: 1, is_active: true, rate_limit_per_minute: 30 }));
      tick();
      steps.push(await admin.list(1));
      tick();
      steps.push(await admin.update({ id: 424_242, org_id: 1, is_active: false }));
      tick();
      steps.push(await admin.remove(keyId, 1));
      expect(steps.map((s) => s.status)).toEqual([200, 200, 403, 200, 200, 200, 404, 200]);
      requestIds = steps.map((s) => s.headers.get('x-request-id')!);
    });

    test('shows each action, newest first, with the admin’s subject on key-management records', async () => {
      const res = await admin.audit({ org_id: 1 });
      expect(res.status).toBe(200);
      expect(Object.keys(res.body.data).sort()).toEqual(['next_cursor', 'records']);
      const records = res.body.data.records.filter((r: any) => requestIds.includes(r.request_id));
      for (const r of records) expect(Object.keys(r).sort()).toEqual(ENTRY_FIELDS);
      expect(records.map((r: any) => [r.action, r.status, r.actor, r.key_id, r.changes])).toEqual([
        ['delete-key', 200, 'acme-admin', keyId, null],
        // A refused call keeps the key id it asked for.
        ['update-key', 404, 'acme-admin', 424_242, null],
        ['list-keys', 200, 'acme-admin', null, null],
        ['update-key', 200, 'acme-admin', keyId, ['is_active', 'rate_limit_per_minute']],
        ['update-key', 200, 'acme-admin', keyId, ['is_active']],
        ['create-session', 403, null, keyId, null],
        ['create-session', 200, null, keyId, null],
        ['create-key', 200, 'acme-admin', keyId, null],
      ]);
      expect(records.map((r: any) => r.request_id)).toEqual([...requestIds].reverse());
      const times = records.map((r: any) => r.at);
      expect(times).toEqual([...times].sort().reverse());
    });

    test('key usage records carry the key, the game and the token prefix, never the whole token', async () => {
      const records = await readAll({ org_id: 1, key_id: keyId });
      const minted = records.find((r) => r.action === 'create-session' && r.status === 200);
      expect(minted).toMatchObject({
        org_id: 1,
        key_id: keyId,
        key_prefix: keyPrefix,
        actor: null,
        game_id: 101,
        stream_id: null,
        token_prefix: token.slice(0, 8),
        user_agent: 'partner-server/1.0',
      });
      expect(minted.source_ip).toEqual(expect.any(String));
      expect(JSON.stringify(records)).not.toContain(token);
      const refused = records.find((r) => r.action === 'create-session' && r.status === 403);
      expect(refused).toMatchObject({ game_id: 102, key_id: keyId });
    });

    test('key_id filters to one key’s records', async () => {
      await admin.create({ org_id: 1, name: 'another' });
      const records = await readAll({ org_id: 1, key_id: keyId });
      expect(records.length).toBe(6);
      expect(records.every((r) => r.key_id === keyId && r.org_id === 1)).toBe(true);
      expect(records.map((r) => r.action)).toEqual([
        'delete-key',
        'update-key',
        'update-key',
        'create-session',
        'create-session',
        'create-key',
      ]);
    });

    test('cursor pages: limit per page, newest first across pages, no gaps or repeats', async () => {
      const all = (await admin.audit({ org_id: 1, limit: 100 })).body.data.records;
      expect(all.length).toBeGreaterThan(5);
      const pages: any[][] = [];
      let cursor: string | null = null;
      do {
        const res = await admin.audit({ org_id: 1, limit: 2, ...(cursor ? { cursor } : {}) });
        expect(res.status).toBe(200);
        expect(res.body.data.records.length).toBeLessThanOrEqual(2);
        pages.push(res.body.data.records);
        cursor = res.body.data.next_cursor;
        if (cursor) expect(cursor).toMatch(/^[A-Za-z0-9_-]+$/);
      } while (cursor);
      expect(pages.length).toBeGreaterThanOrEqual(Math.ceil(all.length / 2));
      expect(pages.flat()).toEqual(all);

      const keyed = await readAll({ org_id: 1, key_id: keyId, limit: 1 });
      expect(keyed.map((r) => r.request_id)).toEqual((await readAll({ org_id: 1, key_id: keyId })).map((r) => r.request_id));
    });

    test('reading the log is not itself recorded', async () => {
      const first = (await admin.audit({ org_id: 1 })).body.data.records;
      const second = (await admin.audit({ org_id: 1 })).body.data.records;
      expect(second).toEqual(first);
    });

    test('each org sees only its own records', async () => {
      await admin.create({ org_id: 2, name: 'globex audited' }, 'globex-admin');
      const globex = await readAll({ org_id: 2 }, 'globex-admin');
      expect(globex.length).toBeGreaterThan(0);
      expect(globex.every((r) => r.org_id === 2)).toBe(true);
      expect(globex.some((r) => r.actor === 'globex-admin' && r.action === 'create-key')).toBe(true);
      const acme = await readAll({ org_id: 1 });
      expect(acme.every((r) => r.org_id === 1)).toBe(true);
    });

    test.each([
      ['not base64 JSON', () => 'not-a-cursor!', {}],
      ['JSON of the wrong shape', () => Buffer.from('{"x":1}').toString('base64url'), {}],
      ['another org’s position', () => Buffer.from(JSON.stringify({ org_id: 2, sk: '2026' })).toString('base64url'), {}],
      [
        'an unfiltered position used with key_id',
        () => Buffer.from(JSON.stringify({ org_id: 1, sk: '2026' })).toString('base64url'),
        { key_id: 1 },
      ],
    ])('a bad cursor (%s) is 400', async (_name, cursor, extra) => {
      const res = await admin.audit({ org_id: 1, cursor: cursor(), ...extra });
      expect(res.status).toBe(400);
      expect(res.body.error).toMatch(/^cursor\b/);
    });

    test.each([
      ['0', 400],
      ['1', 200],
      ['100', 200],
      ['101', 400],
      ['ten', 400],
    ])('limit=%s: %p', async (limit, status) => {
      const res = await admin.audit({ org_id: 1, limit });
      expect(res.status).toBe(status);
      if (status === 400) expect(res.body.error).toMatch(/^limit\b/);
      else expect(res.body.data.records.length).toBeLessThanOrEqual(Number(limit));
    });

    test('org_id is required; key_id must be an id', async () => {
      const noOrg = await stack.request('/api/org-api-keys?action=audit-log', {
        headers: { authorization: await admin.bearer('acme-admin') },
      });
      expect(noOrg.status).toBe(400);
      expect(noOrg.body.error).toMatch(/^org_id\b/);
      const badKey = await admin.audit({ org_id: 1, key_id: 'x' });
      expect(badKey.status).toBe(400);
      expect(badKey.body.error).toMatch(/^key_id\b/);
    });
  });
});
