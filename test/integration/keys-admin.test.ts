/**
 * Key management over HTTP, creating and listing keys: the raw key shown once with its defaults,
 * every property taken, ids unique and increasing, the key stored only as its hash and prefix; the
 * list shows the org's keys with every view field and never the key or its hash. Changes, bounds:
 * the other keys-admin-*.test.ts files.
 */
import { describe, expect, test } from '@jest/globals';
import { ScanCommand } from '@aws-sdk/lib-dynamodb';
import { createHash } from 'node:crypto';
import { describeWithStack } from '../support/describe-with-stack.js';
import { ISO, keyAdminCalls, VIEW_FIELDS } from '../support/key-admin.js';

describeWithStack('key management over HTTP: creating and listing keys', ({ stack, admin }) => {
  const { createSession, isoIn, newKey } = keyAdminCalls({ stack, admin });

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
});
