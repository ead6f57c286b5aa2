/**
 * Key management over HTTP, changing keys: update (every property, null clears, a new rate limit
 * applies to the next call, a body that changes nothing is 400, unknown ids 404), delete, and the
 * immediate effect of a revocation, deletion or expiry on create-session (earlier tokens stay valid).
 */
import { describe, expect, test } from '@jest/globals';
import { describeWithStack } from '../support/describe-with-stack.js';
import { keyAdminCalls, VIEW_FIELDS } from '../support/key-admin.js';

describeWithStack('key management over HTTP: changing keys', ({ stack, admin }) => {
  const { createSession, isoIn, newKey } = keyAdminCalls({ stack, admin });

  describe('update', () => {
    test('changes every property and returns the record as the list shows it', async () => {
      const { id, data: before } = await newKey({ description: 'old', expires_at: isoIn(86_400_000) });
      stack.clock.advance(1000);
      const changes = {
        name: 'renamed',
        description: 'new',
        allowed_game_ids: [101, 102],
        allowed_stream_ids: [201],
        rate_limit_per_minute: 7,
        rate_limit_per_day: 70,
        expires_at: isoIn(7 * 86_400_000),
        mcp_scopes: ['mcp:reports:read'],
        is_active: true,
      };
      const res = await admin.update({ id, org_id: 1, ...changes });
      expect(res.status).toBe(200);
      expect(Object.keys(res.body.data).sort()).toEqual(VIEW_FIELDS);
      expect(res.body.data).toMatchObject({
        id,
        org_id: 1,
        ...changes,
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
      // The misspelt property itself is named.
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
      const { key, data } = await newKey({ expires_at: isoIn(30_000) });
      expect((await createSession(key)).status).toBe(200);
      // 5 s short of the expiry: the next call must land before it, however slow the machine.
      stack.clock.advance(Date.parse(data.expires_at) - stack.clock.now() - 5_000);
      expect((await createSession(key)).status).toBe(200);
      stack.clock.advance(5_500);
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
});
