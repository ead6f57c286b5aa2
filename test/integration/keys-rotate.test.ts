/**
 * Key rotation (`POST ?action=rotate-key`) over HTTP: the new key carries the old one's settings,
 * both keys work during the grace period and only the new one after it, 0 revokes the old key at
 * once, the keys count separately, the list links them, and no admin reaches another org's key.
 */
import { describe, expect, test } from '@jest/globals';
import { ScanCommand } from '@aws-sdk/lib-dynamodb';
import { describeWithStack } from '../support/describe-with-stack.js';
import { auditOfKey, startOfNextMinute } from '../support/keys.js';

describeWithStack('key rotation over HTTP', ({ stack, admin }) => {
  const createSession = (key: string, body: unknown = { game_id: 101 }) => stack.post('create-session', body, { 'x-api-key': key });

  async function newKey(body: Record<string, unknown> = {}, orgId = 1, as = 'acme-admin'): Promise<{ id: number; key: string }> {
    const res = await admin.create({ org_id: orgId, name: 'rotating key', ...body }, as);
    expect(res.status).toBe(200);
    stack.secrets.noteRawKey(res.body.data.key);
    return { id: res.body.data.id, key: res.body.data.key };
  }

  async function rotate(id: number, grace: number, orgId = 1) {
    const res = await admin.rotate({ id, org_id: orgId, grace_period_minutes: grace });
    if (res.status === 200) stack.secrets.noteRawKey(res.body.data.key);
    return res;
  }

  async function keysTable(): Promise<unknown[]> {
    const { Items } = await stack.services.client.send(new ScanCommand({ TableName: stack.tableNames.keys }));
    return (Items ?? []).sort((a, b) => a.id - b.id);
  }

  describe('rotate-key', () => {
    test('a new key with the same settings; both work during the grace period, only the new one after it', async () => {
      const old = await newKey({
        name: 'Checkout',
        description: 'checkout server',
        allowed_game_ids: [101],
        allowed_stream_ids: [201],
        rate_limit_per_minute: 500,
        rate_limit_per_day: 5000,
        mcp_scopes: ['mcp:sessions:write'],
      });
      const before = stack.clock.now();
      const res = await rotate(old.id, 60);
      expect(res.status).toBe(200);
      const data = res.body.data;
      expect(data.key).toMatch(/^dpk_[0-9a-f]{40}$/);
      expect(data.key).not.toBe(old.key);
      expect(data.id).not.toBe(old.id);
      expect(data).toMatchObject({
        org_id: 1,
        name: 'Checkout',
        description: 'checkout server',
        allowed_game_ids: [101],
        allowed_stream_ids: [201],
        rate_limit_per_minute: 500,
        rate_limit_per_day: 5000,
        mcp_scopes: ['mcp:sessions:write'],
        is_active: true,
        expires_at: null,
        rotated_from: old.id,
        rotated_to: null,
        key_prefix: data.key.slice(0, 8),
      });
      expect(data.previous).toMatchObject({ id: old.id, is_active: true, rotated_to: data.id, rotated_from: null });
      const graceEnds = Date.parse(data.previous.expires_at);
      expect(graceEnds).toBeGreaterThanOrEqual(before + 60 * 60_000);
      expect(graceEnds).toBeLessThanOrEqual(stack.clock.now() + 60 * 60_000);

      expect((await createSession(old.key)).status).toBe(200);
      expect((await createSession(data.key)).status).toBe(200);
      // Scopes carried over: the allow-list binds the new key too.
      expect((await createSession(data.key, { game_id: 102 })).status).toBe(403);

      stack.clock.advance(61 * 60_000);
      const late = await createSession(old.key);
      expect(late.status).toBe(401);
      expect(late.body.error).toBe('API key has expired');
      expect((await createSession(data.key)).status).toBe(200);
    });

    test('the list shows rotated_to on the old key and rotated_from on the new one', async () => {
      const old = await newKey();
      const rotated = (await rotate(old.id, 5)).body.data;
      const listed = (await admin.list(1)).body.data as any[];
      expect(listed.find((k) => k.id === old.id)).toMatchObject({ rotated_to: rotated.id, rotated_from: null });
      expect(listed.find((k) => k.id === rotated.id)).toMatchObject({ rotated_to: null, rotated_from: old.id });
      expect(listed.find((k) => k.id === rotated.id)).not.toHaveProperty('key');
    });

    test('grace 0 revokes the old key at once', async () => {
      const old = await newKey();
      expect((await createSession(old.key)).status).toBe(200);
      const res = await rotate(old.id, 0);
      expect(res.status).toBe(200);
      expect(res.body.data.previous).toMatchObject({ is_active: false, rotated_to: res.body.data.id });
      const refused = await createSession(old.key);
      expect(refused.status).toBe(401);
      expect(refused.body.error).toBe('API key has been revoked');
      expect((await createSession(res.body.data.key)).status).toBe(200);
    });

    test('limits carried over, counters separate: exhausting the old key leaves the new one its own allowance', async () => {
      // Both keys' six calls in one minute window: a window that turned between them would reset a count.
      startOfNextMinute(stack);
      const old = await newKey({ rate_limit_per_minute: 2 });
      const fresh = (await rotate(old.id, 30)).body.data;
      expect(fresh.rate_limit_per_minute).toBe(2);
      expect((await createSession(old.key)).status).toBe(200);
      expect((await createSession(old.key)).status).toBe(200);
      expect((await createSession(old.key)).status).toBe(429);
      const first = await createSession(fresh.key);
      expect(first.status).toBe(200);
      expect(first.headers.get('ratelimit-policy')).toContain('"minute";q=2;w=60');
      expect((await createSession(fresh.key)).status).toBe(200);
      expect((await createSession(fresh.key)).status).toBe(429);
    });

    test('the grace period never outlives the old key’s own expiry', async () => {
      const expiresAt = new Date(stack.clock.now() + 30 * 60_000).toISOString();
      const old = await newKey({ expires_at: expiresAt });
      const res = await rotate(old.id, 120);
      expect(res.status).toBe(200);
      expect(res.body.data.previous.expires_at).toBe(expiresAt);
    });

    test('a key rotates once: a second rotation is 409 and creates nothing', async () => {
      const old = await newKey();
      expect((await rotate(old.id, 10)).status).toBe(200);
      const before = await keysTable();
      const again = await rotate(old.id, 10);
      expect(again.status).toBe(409);
      expect(again.body).toEqual({
        success: false,
        error: expect.stringMatching(/already been rotated/),
        code: expect.any(String),
        request_id: expect.any(String),
      });
      expect(await keysTable()).toEqual(before);
    });

    test('audited with the admin subject and what changed', async () => {
      const old = await newKey();
      const res = await rotate(old.id, 0);
      const records = (await auditOfKey(stack, old.id)).filter((r) => r.action === 'rotate-key');
      expect(records).toHaveLength(1);
      expect(records[0]).toMatchObject({
        org_id: 1,
        actor: 'acme-admin',
        status: 200,
        key_id: old.id,
        request_id: res.headers.get('x-request-id'),
      });
      expect([...(records[0]!.changes ?? [])].sort()).toEqual(['expires_at', 'is_active', 'rotated_to']);
    });

    test.each([
      [{ grace_period_minutes: -1 }],
      [{ grace_period_minutes: 10_081 }],
      [{ grace_period_minutes: 1.5 }],
      [{ grace_period_minutes: '60' }],
      [{}],
    ])('grace_period_minutes out of bounds or missing (%p): 400 naming the field (it is required)', async (extra) => {
      const old = await newKey();
      const res = await admin.rotate({ id: old.id, org_id: 1, ...extra });
      expect(res.status).toBe(400);
      expect(res.body.error).toMatch(/^grace_period_minutes\b/);
      expect(res.body).toMatchObject({ code: 'invalid_input', param: 'grace_period_minutes' });
    });

    test('the upper bound (10,080 minutes) is accepted', async () => {
      const old = await newKey();
      expect((await rotate(old.id, 10_080)).status).toBe(200);
    });
  });

  describe('rotate-key: no access across organizations (BOLA)', () => {
    test('a key of another org under your own org id: 404, nothing changed', async () => {
      const globex = await newKey({}, 2, 'globex-admin');
      const before = await keysTable();
      const res = await admin.rotate({ id: globex.id, org_id: 1, grace_period_minutes: 10 });
      expect(res.status).toBe(404);
      expect(res.body.error).toBe(`API key ${globex.id} not found in organization 1`);
      expect(await keysTable()).toEqual(before);
      expect((await createSession(globex.key, { game_id: 301 })).status).toBe(200);
    });

    test('an org you are not in: 403, nothing changed', async () => {
      const globex = await newKey({}, 2, 'globex-admin');
      const before = await keysTable();
      const res = await admin.rotate({ id: globex.id, org_id: 2, grace_period_minutes: 0 }, 'acme-admin');
      expect(res.status).toBe(403);
      expect(res.body.error).toBe('You are not a member of organization 2');
      expect(await keysTable()).toEqual(before);
    });

    test('a member below admin: 403; a free org: 403 tier; no bearer: 401', async () => {
      const old = await newKey();
      const body = { id: old.id, org_id: 1, grace_period_minutes: 0 };
      expect((await admin.rotate(body, 'acme-member')).status).toBe(403);
      const tier = await admin.rotate({ ...body, org_id: 3 }, 'tiny-admin');
      expect(tier.status).toBe(403);
      expect(tier.body.error).toBe('Business tier or higher required');
      const anonymous = await stack.request('/api/org-api-keys?action=rotate-key', {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify(body),
      });
      expect(anonymous.status).toBe(401);
      expect((await createSession(old.key)).status).toBe(200);
    });
  });
});
