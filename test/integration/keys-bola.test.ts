/**
 * No probing across organizations (BOLA): every key-management operation, by the admin of each demo
 * org, against each demo org. An org you are not in is 403; a key id of another org under your own
 * org id is 404; a free-tier org's admin is 403 on their own org. Refused calls change nothing.
 */
import { afterAll, beforeAll, describe, expect, test } from '@jest/globals';
import { ScanCommand } from '@aws-sdk/lib-dynamodb';
import { generateRawKey, newKeyRecord } from '../../shared/keys/api-keys.js';
import { adminApi, type AdminApi } from '../support/admin-api.js';
import { startStack, type Stack } from '../support/local-stack.js';

let stack: Stack;
let admin: AdminApi;
/** One key per org: ids by org. */
const keyOf: Record<number, number> = {};

const ADMINS = { 1: 'acme-admin', 2: 'globex-admin', 3: 'tiny-admin' } as const;
const ORGS = [1, 2, 3] as const;

beforeAll(async () => {
  stack = await startStack();
  admin = adminApi(stack);
  keyOf[1] = (await admin.create({ org_id: 1, name: 'acme key' }, 'acme-admin')).body.data.id;
  keyOf[2] = (await admin.create({ org_id: 2, name: 'globex key' }, 'globex-admin')).body.data.id;
  // A free org cannot use the admin API; its key (kept from a time it was on Business) goes in directly.
  const tinyKey = newKeyRecord(generateRawKey(), 9_000, { org_id: 3, tier: 'free' }, { name: 'tiny key' }, stack.clock.now());
  await stack.services.stores.keys.create(tinyKey);
  keyOf[3] = tinyKey.id;
});
afterAll(() => stack.stop());

async function keysTable(): Promise<unknown[]> {
  const { Items } = await stack.services.client.send(new ScanCommand({ TableName: stack.tableNames.keys }));
  return (Items ?? []).sort((a, b) => a.id - b.id);
}

type Op = 'list' | 'create' | 'update' | 'delete' | 'audit-log';
function call(op: Op, actor: string, orgId: number, keyId: number) {
  switch (op) {
    case 'list':
      return admin.list(orgId, actor);
    case 'create':
      return admin.create({ org_id: orgId, name: 'intruder' }, actor);
    case 'update':
      return admin.update({ id: keyId, org_id: orgId, is_active: false, rate_limit_per_minute: 1 }, actor);
    case 'delete':
      return admin.remove(keyId, orgId, actor);
    case 'audit-log':
      return admin.audit({ org_id: orgId, key_id: keyId }, actor);
  }
}

const OPS: Op[] = ['list', 'create', 'update', 'delete', 'audit-log'];

/** Every (actor's org, target org, operation) where access is refused, with the status decided. */
const refusals = ORGS.flatMap((actorOrg) =>
  ORGS.flatMap((targetOrg) =>
    OPS.map((op) => {
      const own = actorOrg === targetOrg;
      // Below Business an org's admins may still list, revoke and delete its keys (docs/decisions.md#tiers).
      const reason = !own ? 'not a member' : actorOrg === 3 && op !== 'list' && op !== 'delete' ? 'tier' : null;
      return { actorOrg, targetOrg, op, reason };
    }),
  ),
).filter((c) => c.reason !== null);

describe('BOLA matrix across the three demo orgs', () => {
  test.each(refusals.map((c) => [ADMINS[c.actorOrg], c.op, c.targetOrg, c.reason] as const))(
    '%s %s on org %p: 403 (%s), nothing changed',
    async (actor, op, targetOrg, reason) => {
      const before = await keysTable();
      const res = await call(op, actor, targetOrg, keyOf[targetOrg]!);
      expect(res.status).toBe(403);
      expect(res.body.success).toBe(false);
      expect(res.body.error).toBe(
        reason === 'tier' ? 'Business tier or higher required' : `You are not a member of organization ${targetOrg}`,
      );
      expect(await keysTable()).toEqual(before);
    },
  );

  const probes = [1, 2].flatMap((actorOrg) =>
    ORGS.filter((o) => o !== actorOrg).flatMap((keyOrg) =>
      (['update', 'delete'] as const).map((op) => [ADMINS[actorOrg as 1 | 2], op, keyOrg, actorOrg] as const),
    ),
  );
  test.each(probes)('%s %s of org %p’s key under their own org %p: 404, nothing changed', async (actor, op, keyOrg, ownOrg) => {
    const before = await keysTable();
    const res = await call(op, actor, ownOrg, keyOf[keyOrg]!);
    expect(res.status).toBe(404);
    expect(res.body).toEqual({
      success: false,
      error: `API key ${keyOf[keyOrg]} not found in organization ${ownOrg}`,
      code: 'not_found',
      request_id: expect.any(String),
    });
    expect(await keysTable()).toEqual(before);
  });

  test('a key id of another org under your org is indistinguishable from a key id that never existed', async () => {
    const foreign = await call('update', 'acme-admin', 1, keyOf[2]!);
    const missing = await call('update', 'acme-admin', 1, 123_456);
    expect(foreign.status).toBe(missing.status);
    expect(foreign.body.error.replace(String(keyOf[2]), 'N')).toBe(missing.body.error.replace('123456', 'N'));
  });

  test('the audit-log key filter cannot read another org’s key records', async () => {
    const res = await admin.audit({ org_id: 1, key_id: keyOf[2]! }, 'acme-admin');
    expect(res.status).toBe(200);
    // Only org 1's own refused probes for that id (the record keeps the id asked for), nothing of org 2's.
    expect(res.body.data.records.length).toBeGreaterThan(0);
    for (const r of res.body.data.records) expect(r).toMatchObject({ org_id: 1, status: 404, actor: 'acme-admin', key_prefix: null });
  });

  test.each([1, 2] as const)('the admin of org %p manages their own keys: list, create, update, delete', async (org) => {
    const actor = ADMINS[org];
    const listed = await call('list', actor, org, 0);
    expect(listed.status).toBe(200);
    expect(listed.body.data.every((k: any) => k.org_id === org)).toBe(true);
    expect(listed.body.data.map((k: any) => k.id)).toContain(keyOf[org]);
    const created = await call('create', actor, org, 0);
    expect(created.status).toBe(200);
    expect(created.body.data.org_id).toBe(org);
    const updated = await call('update', actor, org, created.body.data.id);
    expect(updated.status).toBe(200);
    expect(updated.body.data).toMatchObject({ is_active: false, rate_limit_per_minute: 1 });
    expect((await call('delete', actor, org, created.body.data.id)).status).toBe(200);
  });

  test('the admin of the free org 3 still sees its own keys, and only those', async () => {
    const listed = await call('list', 'tiny-admin', 3, 0);
    expect(listed.status).toBe(200);
    expect(listed.body.data.map((k: any) => k.id)).toEqual([keyOf[3]]);
  });

  test('after the whole matrix, every org’s original key is as it was', async () => {
    expect((await admin.list(1, 'acme-admin')).body.data.find((k: any) => k.id === keyOf[1])).toMatchObject({
      is_active: true,
      rate_limit_per_minute: 60,
    });
    expect((await admin.list(2, 'globex-admin')).body.data.find((k: any) => k.id === keyOf[2])).toMatchObject({
      is_active: true,
      rate_limit_per_minute: 60,
    });
    const tiny = (await keysTable()).find((k: any) => k.id === keyOf[3]) as any;
    expect(tiny).toMatchObject({ org_id: 3, is_active: true, rate_limit_per_minute: 60 });
  });
});
