/**
 * Tier enforcement: when an org drops below Business, every key of the org is
 * refused (403, the tier message) on its very next call, REST and MCP alike; the org's admins can
 * still list, revoke and delete its keys, while creating, reactivating, rotating and scope changes
 * need the tier. A key created or rotated while the tier drops is refused (its write checks the org's
 * tier in the same transaction), one created while it changes to another allowed tier takes that
 * tier, and a slow, older tier change never overwrites a newer one.
 */
import { afterAll, beforeAll, describe, expect, test } from '@jest/globals';
import { GetCommand } from '@aws-sdk/lib-dynamodb';
import { AdminAccess } from '../../shared/catalog/admin-access.js';
import { IdAllocator } from '../../shared/platform/ids.js';
import { KeyAdmin } from '../../shared/keys/key-admin.js';
import { hashApiKey } from '../../shared/keys/credential.js';
import type { ApiKeyRecord } from '../../shared/keys/model.js';
import { OrgTiers } from '../../shared/keys/org-tiers.js';
import { adminApi, type AdminApi } from '../support/admin-api.js';
import { startStack, type Stack } from '../support/local-stack.js';
import { INITIALIZE, postMcp } from '../support/mcp.js';

const ORG = 7;
const TIER_MESSAGE = 'Business tier or higher required';

let stack: Stack;
let admin: AdminApi;
let tiers: OrgTiers;
beforeAll(async () => {
  stack = await startStack();
  admin = adminApi(stack, 'down-admin');
  const { catalog, keys } = stack.services.stores;
  tiers = new OrgTiers({ orgs: catalog, keys });
  await Promise.all([
    catalog.putOrg({ org_id: ORG, slug: 'down', name: 'Downgraded Studio', tier: 'business' }),
    catalog.putMember(ORG, 'down-admin', 'admin'),
    catalog.putPlayable({
      kind: 'game',
      id: 701,
      org_id: ORG,
      org_slug: 'down',
      name: 'Down Game',
      require_session_token: true,
      content_url: '/demo-game/index.html',
    }),
  ]);
});
afterAll(() => stack.stop());

async function newKey(body: Record<string, unknown> = {}): Promise<{ id: number; key: string }> {
  const res = await admin.create({ org_id: ORG, name: 'tiered key', mcp_scopes: ['mcp:sessions:write'], ...body });
  expect(res.status).toBe(200);
  stack.secrets.noteRawKey(res.body.data.key);
  return { id: res.body.data.id, key: res.body.data.key };
}

const createSession = (key: string) => stack.post('create-session', { game_id: 701 }, { 'x-api-key': key });
const storedKey = async (raw: string) =>
  (await stack.services.client.send(new GetCommand({ TableName: stack.tableNames.keys, Key: { key_hash: hashApiKey(raw) } })))
    .Item as ApiKeyRecord;

describe('an org dropping below Business', () => {
  test('its keys are refused on the very next call (REST and MCP); its admins can still list, revoke and delete them', async () => {
    const [a, b, c] = [await newKey(), await newKey(), await newKey()];
    expect((await createSession(a.key)).status).toBe(200);
    expect((await postMcp(stack, INITIALIZE, { 'x-api-key': a.key })).status).toBe(200);

    const change = await tiers.change(ORG, 'pro');
    expect(change).toMatchObject({ org_id: ORG, tier: 'pro', keys: 3 });

    for (const k of [a, b, c]) {
      const res = await createSession(k.key);
      expect(res.status).toBe(403);
      expect(res.body).toMatchObject({ success: false, error: TIER_MESSAGE });
    }
    const mcp = await postMcp(stack, INITIALIZE, { 'x-api-key': a.key });
    expect(mcp.status).toBe(403);
    expect(mcp.body).toMatchObject({ success: false, error: TIER_MESSAGE });

    // What the org can still do: see its keys, revoke one, delete another.
    const listed = await admin.list(ORG);
    expect(listed.status).toBe(200);
    expect(listed.body.data.map((k: { id: number }) => k.id)).toEqual(expect.arrayContaining([a.id, b.id, c.id]));
    const revoked = await admin.update({ id: a.id, org_id: ORG, is_active: false });
    expect(revoked.status).toBe(200);
    expect(revoked.body.data.is_active).toBe(false);
    expect((await admin.remove(b.id, ORG)).status).toBe(200);

    // What needs the tier: create, reactivate, rotate, scope (and any other) changes.
    const refused = [
      await admin.create({ org_id: ORG, name: 'new while pro' }),
      await admin.update({ id: a.id, org_id: ORG, is_active: true }),
      await admin.update({ id: c.id, org_id: ORG, mcp_scopes: ['mcp:games:write'] }),
      await admin.update({ id: c.id, org_id: ORG, allowed_game_ids: null }),
      await admin.update({ id: c.id, org_id: ORG, is_active: false, name: 'revoke and rename' }),
      await admin.rotate({ id: c.id, org_id: ORG, grace_period_minutes: 0 }),
    ];
    for (const res of refused) expect([res.status, res.body.error]).toEqual([403, TIER_MESSAGE]);

    // Back to Business: the key left alone works again; the revoked one stays revoked.
    await tiers.change(ORG, 'business');
    expect((await createSession(c.key)).status).toBe(200);
    expect((await createSession(a.key)).status).toBe(401);
  });

  /**
   * KeyAdmin over the stack's stores, where `meanwhile` runs just before the new key's first write:
   * the create (or rotation) was authorized at the tier it read, then the whole tier change runs
   * (its sweep finds no such key yet), then the key is written.
   */
  function racingKeyAdmin(meanwhile: () => Promise<unknown>): KeyAdmin {
    const { catalog, keys, sequences, audit } = stack.services.stores;
    let pending: (() => Promise<unknown>) | undefined = meanwhile;
    const store = Object.assign(Object.create(keys) as typeof keys, {
      createInOrg: async (record: ApiKeyRecord) => {
        const run = pending;
        pending = undefined;
        await run?.();
        await keys.createInOrg(record);
      },
    });
    return new KeyAdmin({
      access: new AdminAccess(catalog),
      keys: store,
      audit,
      keyIds: new IdAllocator(sequences, { sequence: 'key_id', blockSize: 1 }),
      clock: stack.clock,
      auditRetentionDays: 90,
    });
  }
  const call = (requestId: string) => ({ requestId, sourceIp: '127.0.0.1', userAgent: 't' });
  const keyNamed = async (name: string) =>
    ((await admin.list(ORG)).body.data as { id: number; name: string; rotated_to: number | null }[]).filter((k) => k.name === name);

  test('a create racing a drop below Business (the change missed the key): refused with the tier message, no key left with the old tier', async () => {
    await tiers.change(ORG, 'business');
    const keyAdmin = racingKeyAdmin(() => tiers.change(ORG, 'free'));
    await expect(keyAdmin.create({ subject: 'down-admin' }, { org_id: ORG, name: 'raced' }, call('race-1'))).rejects.toMatchObject({
      name: 'TierRequired',
      message: TIER_MESSAGE,
    });
    await tiers.change(ORG, 'business');
    expect(await keyNamed('raced')).toEqual([]);
  });

  test('a create racing a change to another tier that allows keys: the key is stored with the new tier', async () => {
    await tiers.change(ORG, 'business');
    let version = 0;
    const keyAdmin = racingKeyAdmin(async () => (version = (await tiers.change(ORG, 'enterprise')).version));
    const created = await keyAdmin.create({ subject: 'down-admin' }, { org_id: ORG, name: 'raced up' }, call('race-2'));
    stack.secrets.noteRawKey(created.key);
    expect(await storedKey(created.key)).toMatchObject({ org_tier: 'enterprise', org_tier_version: version });
    expect((await createSession(created.key)).status).toBe(200);
    // The tier change after it reaches it as any key.
    await tiers.change(ORG, 'pro');
    expect((await storedKey(created.key)).org_tier).toBe('pro');
    await tiers.change(ORG, 'business');
  });

  test('a rotation racing a drop below Business: refused with the tier message, the old key untouched, no new key', async () => {
    await tiers.change(ORG, 'business');
    const old = await newKey({ name: 'rotated while raced' });
    const keyAdmin = racingKeyAdmin(() => tiers.change(ORG, 'free'));
    await expect(
      keyAdmin.rotate({ subject: 'down-admin' }, { id: old.id, org_id: ORG, grace_period_minutes: 0 }, call('race-3')),
    ).rejects.toMatchObject({ name: 'TierRequired' });
    await tiers.change(ORG, 'business');
    expect((await keyNamed('rotated while raced')).map((k) => [k.id, k.rotated_to])).toEqual([[old.id, null]]);
    expect((await createSession(old.key)).status).toBe(200);
  });

  test('a slow, older tier change never overwrites a newer one', async () => {
    const first = await tiers.change(ORG, 'free');
    const second = await tiers.change(ORG, 'enterprise');
    const k = await newKey();
    // The first change's key sweep arrives late.
    expect(await stack.services.stores.keys.setOrgTier(ORG, first.tier, first.version)).toBe(0);
    expect(await storedKey(k.key)).toMatchObject({ org_tier: 'enterprise', org_tier_version: second.version });
    expect((await createSession(k.key)).status).toBe(200);
  });
});
