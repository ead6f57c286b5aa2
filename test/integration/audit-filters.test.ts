/**
 * The audit log's filters (audit_action, outcome, combinable with key_id; cursors bound to them) and
 * the before and after values of updates (`diff`): update-key, the old key of rotate-key.
 */
import { afterAll, beforeAll, describe, expect, test } from '@jest/globals';
import { adminApi, type AdminApi } from '../support/admin-api.js';
import { startStack, type Stack } from '../support/local-stack.js';

let stack: Stack;
let admin: AdminApi;
let keyId: number;
beforeAll(async () => {
  stack = await startStack();
  admin = adminApi(stack);
  const created = await admin.create({ org_id: 1, name: 'filtered', allowed_game_ids: [101] });
  keyId = created.body.data.id;
  const key = created.body.data.key as string;
  for (const game_id of [101, 102, 101, 102]) {
    stack.clock.advance(1_000);
    await stack.post('create-session', { game_id }, { 'x-api-key': key });
  }
  stack.clock.advance(1_000);
  expect((await admin.update({ id: keyId, org_id: 1, name: 'renamed', rate_limit_per_minute: 30, description: null })).status).toBe(200);
  stack.clock.advance(1_000);
  expect((await admin.update({ id: 424_242, org_id: 1, is_active: false })).status).toBe(404);
});
afterAll(() => stack.stop());

async function readAll(params: Record<string, string | number>): Promise<any[]> {
  const records: any[] = [];
  let cursor: string | null = null;
  do {
    const res = await admin.audit({ org_id: 1, limit: 1, ...params, ...(cursor ? { cursor } : {}) });
    expect(res.status).toBe(200);
    records.push(...res.body.data.records);
    cursor = res.body.data.next_cursor;
  } while (cursor);
  return records;
}

describe('audit-log filters', () => {
  test('audit_action: only that action’s records, in pages', async () => {
    const records = await readAll({ audit_action: 'update-key' });
    expect(records.length).toBeGreaterThanOrEqual(2);
    expect(records.every((r) => r.action === 'update-key')).toBe(true);
  });

  test('outcome: successes below 400, refusals from 400 on', async () => {
    const refused = await readAll({ outcome: 'refused' });
    const succeeded = await readAll({ outcome: 'success' });
    expect(refused.map((r) => r.status).sort()).toEqual([403, 403, 404]);
    expect(succeeded.every((r) => r.status < 400)).toBe(true);
    expect(refused.length + succeeded.length).toBe((await readAll({})).length);
  });

  test('combined with key_id', async () => {
    const records = await readAll({ key_id: keyId, audit_action: 'create-session', outcome: 'refused' });
    expect(records.map((r) => [r.key_id, r.action, r.status, r.game_id])).toEqual([
      [keyId, 'create-session', 403, 102],
      [keyId, 'create-session', 403, 102],
    ]);
  });

  test('a cursor is only valid for the same filters (else 400)', async () => {
    const first = await admin.audit({ org_id: 1, limit: 1, audit_action: 'create-session' });
    const cursor = first.body.data.next_cursor as string;
    expect(cursor).toEqual(expect.any(String));
    expect((await admin.audit({ org_id: 1, limit: 1, audit_action: 'create-session', cursor })).status).toBe(200);
    const others: Record<string, string>[] = [{ audit_action: 'update-key' }, {}, { audit_action: 'create-session', outcome: 'success' }];
    for (const other of others) {
      const res = await admin.audit({ org_id: 1, limit: 1, ...other, cursor });
      expect(res.status).toBe(400);
      expect(res.body).toMatchObject({ success: false, code: 'invalid_input', error: 'cursor: not a cursor of this audit-log query' });
    }
  });

  test.each([
    [{ audit_action: 'Update Key' }, 'audit_action'],
    [{ outcome: 'failed' }, 'outcome'],
  ])('a bad filter %p is 400 naming it', async (params, param) => {
    const res = await admin.audit({ org_id: 1, ...params });
    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({ success: false, code: 'invalid_input', param });
  });
});

describe('before and after values of updates', () => {
  test('update-key: each field whose value changed, before and after (a field set to what it was is left out)', async () => {
    const [record] = await readAll({ audit_action: 'update-key', outcome: 'success' });
    expect(record.changes).toEqual(['name', 'description', 'rate_limit_per_minute']);
    expect(record.diff).toEqual({ name: { before: 'filtered', after: 'renamed' }, rate_limit_per_minute: { before: 60, after: 30 } });
  });

  test('the allow-lists and scopes: lists before and after; a refused update (404) has none', async () => {
    stack.clock.advance(1_000);
    const res = await admin.update({ id: keyId, org_id: 1, allowed_game_ids: [101, 102], mcp_scopes: ['mcp:games:read'] });
    expect(res.status).toBe(200);
    const [record] = await readAll({ audit_action: 'update-key', outcome: 'success' });
    expect(record.diff).toEqual({
      allowed_game_ids: { before: [101], after: [101, 102] },
      mcp_scopes: { before: [], after: ['mcp:games:read'] },
    });
    const [missing] = await readAll({ audit_action: 'update-key', outcome: 'refused' });
    expect(missing).toMatchObject({ status: 404, key_id: 424_242, diff: null });
  });

  test('rotate-key: the old key’s retirement, before and after; never a hash or a raw key', async () => {
    stack.clock.advance(1_000);
    const rotated = await admin.rotate({ id: keyId, org_id: 1, grace_period_minutes: 0 });
    expect(rotated.status).toBe(200);
    const [record] = await readAll({ audit_action: 'rotate-key' });
    expect(record.diff).toEqual({
      is_active: { before: true, after: false },
      expires_at: { before: null, after: expect.any(String) },
      rotated_to: { before: null, after: rotated.body.data.id },
    });
    const everything = JSON.stringify(await readAll({}));
    expect(everything).not.toContain(rotated.body.data.key);
    expect(everything).not.toMatch(/key_hash|[0-9a-f]{64}/);
  });
});
