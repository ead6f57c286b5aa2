/**
 * create-session over HTTP, what a call leaves behind: its audit record (key, org, target, outcome,
 * caller; 90 days; never the whole token or the raw key outside the report's field), the key's
 * last_used_at, and the metering of calls refused after authentication (403, 400: counted and
 * audited), while a call without a valid key (401) is neither.
 */
import { afterAll, beforeAll, describe, expect, test } from '@jest/globals';
import { auditOfKey, auditOfRequest, createTestKey, putKeyRecord, roomInMinute, windowCounts } from '../support/keys.js';
import type { Stack } from '../support/local-stack.js';
import { startPartnerStack, type PartnerStack } from '../support/partner-stack.js';

let stack: Stack;
let api: PartnerStack['api'];
beforeAll(async () => {
  ({ stack, api } = await startPartnerStack());
});
afterAll(() => stack.stop());

describe('create-session: audit and metering', () => {
  test('a successful call writes one audit record naming key, org, target, outcome and caller', async () => {
    const key = await createTestKey(stack);
    const reply = await stack.post('create-session', { game_id: 101 }, { 'x-api-key': key.raw, 'user-agent': 'partner-backend/1.0' });
    expect(reply.status).toBe(200);
    const requestId = reply.headers.get('x-request-id');
    expect(requestId).toBeTruthy();
    const records = await auditOfRequest(stack, 1, requestId);
    expect(records).toHaveLength(1);
    const record = records[0]!;
    expect(record).toMatchObject({
      org_id: 1,
      action: 'create-session',
      status: 200,
      key_id: key.record.id,
      key_prefix: key.raw.slice(0, 8),
      game_id: 101,
      stream_id: null,
      token_prefix: reply.body.data.token.slice(0, 8),
      user_agent: 'partner-backend/1.0',
      request_id: requestId,
    });
    expect(record.source_ip).toMatch(/127\.0\.0\.1|::1/);
    // Retained 90 days (TTL, epoch seconds).
    const ttl = (record as unknown as { ttl: number }).ttl;
    expect(ttl - Math.floor(Date.parse(record.at) / 1000)).toBe(90 * 86_400);
    expect(Math.abs(Date.parse(record.at) - stack.clock.now())).toBeLessThan(10_000);
    // The whole token is kept only as the storage field the session report reads (never returned
    // by the audit log: see audit-log.test.ts); nothing else holds it, nor the raw key.
    const { minted_token, ...shown } = record;
    expect(minted_token).toBe(reply.body.data.token);
    expect(JSON.stringify(shown)).not.toContain(reply.body.data.token);
    expect(JSON.stringify(record)).not.toContain(key.raw);
    const log = await stack.request(`/api/org-api-keys?action=audit-log&org_id=1&key_id=${key.record.id}`, {
      headers: { authorization: `Bearer ${await stack.issuer.sign('acme-admin')}` },
    });
    expect(log.status).toBe(200);
    expect(JSON.stringify(log.body)).not.toContain(reply.body.data.token);
  });

  test('a call stamps the key’s last_used_at', async () => {
    const key = await createTestKey(stack);
    expect((await stack.services.stores.keys.getByHash(key.record.key_hash))?.last_used_at).toBeNull();
    const before = stack.clock.now();
    expect((await api.create({ game_id: 101 }, key.raw)).status).toBe(200);
    const stamped = (await stack.services.stores.keys.getByHash(key.record.key_hash))?.last_used_at;
    expect(Date.parse(stamped ?? '')).toBeGreaterThanOrEqual(before);
    expect(Date.parse(stamped ?? '')).toBeLessThanOrEqual(stack.clock.now());
  });

  test('a stream call is audited with its stream', async () => {
    const key = await createTestKey(stack);
    expect((await api.create({ stream_id: 202 }, key.raw)).status).toBe(200);
    expect(await auditOfKey(stack, key.record.id)).toEqual([
      expect.objectContaining({ action: 'create-session', status: 200, game_id: null, stream_id: 202 }),
    ]);
  });

  test('a call refused after authentication (403 out of scope) is counted and audited with 403', async () => {
    roomInMinute(stack);
    const key = await createTestKey(stack, { allowed_game_ids: [] });
    const reply = await api.create({ game_id: 101 }, key.raw);
    expect(reply.status).toBe(403);
    expect(reply.headers.get('ratelimit-policy')).toBe('"minute";q=60;w=60, "day";q=10000;w=86400');
    expect(await windowCounts(stack, key.record)).toEqual({ minute: 1, day: 1 });
    const records = await auditOfKey(stack, key.record.id);
    expect(records).toEqual([expect.objectContaining({ action: 'create-session', status: 403, game_id: 101, token_prefix: null })]);
  });

  test('a malformed request of a valid key (400) is counted and audited, with RateLimit headers', async () => {
    roomInMinute(stack);
    const key = await createTestKey(stack);
    for (const body of [{}, { game_id: 101, stream_id: 201 }, { game_id: 101, expires_in_minutes: 0 }, '{"game_id":', '[]']) {
      const reply = await api.create(body, key.raw);
      expect(reply.status).toBe(400);
      expect(reply.body.success).toBe(false);
      expect(reply.headers.get('ratelimit-policy')).toBe('"minute";q=60;w=60, "day";q=10000;w=86400');
    }
    const utf16 = await stack.post('create-session', '{"game_id":101}', {
      'x-api-key': key.raw,
      'content-type': 'application/json; charset=utf-16',
    });
    expect(utf16.status).toBe(400);
    expect(await windowCounts(stack, key.record)).toEqual({ minute: 6, day: 6 });
    const records = await auditOfKey(stack, key.record.id);
    expect(records).toHaveLength(6);
    for (const r of records) expect(r).toMatchObject({ action: 'create-session', status: 400, key_id: key.record.id });
  });

  test('a missing, unknown, revoked or expired key is 401 whatever the body', async () => {
    const revoked = await createTestKey(stack);
    await putKeyRecord(stack, { ...revoked.record, is_active: false });
    const expired = await createTestKey(stack, { expires_at: new Date(stack.clock.now() - 1000).toISOString() });
    const unknown = `dpk_${'0'.repeat(40)}`;
    for (const body of [{}, { game_id: 'x' }, '{"game_id":', '']) {
      for (const headers of [
        {} as Record<string, string>,
        { 'x-api-key': unknown },
        { 'x-api-key': revoked.raw },
        { 'x-api-key': expired.raw },
      ]) {
        const reply = await stack.post('create-session', body, headers);
        expect([reply.status, reply.body.success]).toEqual([401, false]);
      }
    }
    expect(await auditOfKey(stack, revoked.record.id)).toEqual([]);
  });
});
