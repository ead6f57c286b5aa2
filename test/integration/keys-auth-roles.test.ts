/**
 * Authorization from the catalog over HTTP (roles and tiers: 403): only owners and admins of an org
 * manage its keys and read its audit log, a refused call changes nothing, an org below Business may
 * only list, revoke and delete, and an org that does not exist reads like one you are not in.
 * Bearer authentication itself is in keys-auth.test.ts.
 */
import { afterAll, beforeAll, describe, expect, test } from '@jest/globals';
import { adminApi, type AdminApi } from '../support/admin-api.js';
import { startStack, type Stack } from '../support/local-stack.js';

let stack: Stack;
let admin: AdminApi;
beforeAll(async () => {
  stack = await startStack();
  admin = adminApi(stack);
  const { catalog } = stack.services.stores;
  await Promise.all([
    catalog.putMember(1, 'acme-owner', 'owner'),
    catalog.putMember(1, 'acme-analyst', 'analyst'),
    catalog.putMember(1, 'acme-viewer', 'viewer'),
    catalog.putOrg({ org_id: 4, slug: 'pro', name: 'Pro Studio', tier: 'pro' }),
    catalog.putMember(4, 'pro-owner', 'owner'),
  ]);
});
afterAll(() => stack.stop());

describe('authorization from the catalog: roles and tiers', () => {
  test.each([
    ['acme-owner', 200],
    ['acme-admin', 200],
    ['acme-member', 403],
    ['acme-analyst', 403],
    ['acme-viewer', 403],
    ['globex-admin', 403],
    ['stranger', 403],
  ])('%s on org 1: %p', async (subject, status) => {
    const res = await admin.list(1, subject);
    expect(res.status).toBe(status);
    if (status === 403) {
      expect(res.body.success).toBe(false);
      expect(res.body.error).toMatch(subject.startsWith('acme') ? /owners and admins/ : /not a member of organization 1/);
    }
  });

  test('an editor can neither create, update, delete nor read the audit log, and nothing changes', async () => {
    const before = (await admin.list(1)).body.data;
    const as = 'acme-member';
    const results = [
      await admin.create({ org_id: 1, name: 'sneaky' }, as),
      await admin.update({ id: 1, org_id: 1, is_active: false }, as),
      await admin.remove(1, 1, as),
      await admin.audit({ org_id: 1 }, as),
    ];
    for (const res of results) {
      expect(res.status).toBe(403);
      expect(res.body.error).toMatch(/owners and admins/);
    }
    expect((await admin.list(1)).body.data).toEqual(before);
  });

  test('an owner can manage keys', async () => {
    const created = await admin.create({ org_id: 1, name: 'by owner' }, 'acme-owner');
    expect(created.status).toBe(200);
    expect((await admin.update({ id: created.body.data.id, org_id: 1, is_active: false }, 'acme-owner')).status).toBe(200);
    expect((await admin.remove(created.body.data.id, 1, 'acme-owner')).status).toBe(200);
  });

  test.each([
    ['tiny-admin', 3, 'free'],
    ['pro-owner', 4, 'pro'],
  ])('%s of a %s-tier org: 403 Business tier or higher required, except to list, revoke and delete', async (subject, orgId) => {
    for (const res of [
      await admin.create({ org_id: orgId, name: 'x' }, subject),
      await admin.update({ id: 1, org_id: orgId, name: 'renamed' }, subject),
      await admin.update({ id: 1, org_id: orgId, is_active: true }, subject),
      await admin.rotate({ id: 1, org_id: orgId, grace_period_minutes: 0 }, subject),
      await admin.audit({ org_id: orgId }, subject),
    ]) {
      expect(res.status).toBe(403);
      expect(res.body).toEqual({
        success: false,
        error: 'Business tier or higher required',
        code: expect.any(String),
        request_id: expect.any(String),
      });
    }
    // An org below Business can always see and shut off its keys (key 1 is another org's: 404).
    expect((await admin.list(orgId, subject)).status).toBe(200);
    expect((await admin.update({ id: 1, org_id: orgId, is_active: false }, subject)).status).toBe(404);
    expect((await admin.remove(1, orgId, subject)).status).toBe(404);
  });

  test('an enterprise-tier admin manages their org', async () => {
    expect((await admin.list(2, 'globex-admin')).status).toBe(200);
  });

  test('an org that does not exist reads exactly like one you are not in', async () => {
    const unknown = await admin.list(99, 'acme-admin');
    const foreign = await admin.list(2, 'acme-admin');
    expect(unknown.status).toBe(403);
    expect(foreign.status).toBe(403);
    expect(unknown.body.error.replace('99', 'N')).toBe(foreign.body.error.replace('2', 'N'));
  });
});
