/**
 * list-orgs: the organizations a signed-in subject belongs to (the console's org picker), found
 * through the memberships' `SUBJECT#` entries of the catalog's `by_org` index, and the backfill that
 * gives memberships written before it their index keys; `npm start` on a data folder seeded before
 * list-orgs (and before the analyst and viewer demo users) upgrades it.
 */
import { afterAll, beforeAll, describe, expect, test } from '@jest/globals';
import { DeleteCommand, PutCommand } from '@aws-sdk/lib-dynamodb';
import { parseBackfillArgs } from '../../infra/backfill-memberships.js';
import { DEMO_USERS, seedCatalog } from '../../infra/local/seed.js';
import { backfillMemberKeys } from '../../shared/catalog/catalog-store.js';
import { adminApi, type AdminApi } from '../support/admin-api.js';
import { startStack, type Stack } from '../support/local-stack.js';

let stack: Stack;
let admin: AdminApi;
beforeAll(async () => {
  stack = await startStack();
  admin = adminApi(stack);
  const { catalog } = stack.services.stores;
  // One subject in two orgs, stored in the order that would list them backwards.
  await Promise.all([catalog.putMember(3, 'two-orgs', 'viewer'), catalog.putMember(1, 'two-orgs', 'analyst')]);
});
afterAll(() => stack.stop());

const orgsOf = async (as: string) => {
  const res = await admin.listOrgs(as);
  expect(res.status).toBe(200);
  expect(res.body.success).toBe(true);
  return res.body.data.orgs as unknown[];
};

describe('list-orgs', () => {
  test('acme-admin sees org 1 with its role', async () => {
    expect(await orgsOf('acme-admin')).toEqual([{ org_id: 1, name: 'Acme Games', tier: 'business', role: 'admin' }]);
  });

  test('a subject with two memberships sees both, by org id (a Free org too: it only shows the membership)', async () => {
    expect(await orgsOf('two-orgs')).toEqual([
      { org_id: 1, name: 'Acme Games', tier: 'business', role: 'analyst' },
      { org_id: 3, name: 'Tiny Studio', tier: 'free', role: 'viewer' },
    ]);
  });

  test('a subject with no membership gets an empty list', async () => {
    expect(await orgsOf('nobody-at-all')).toEqual([]);
  });

  test('no bearer token: 401; its own path answers the same', async () => {
    const res = await stack.request('/api/org-api-keys?action=list-orgs');
    expect(res.status).toBe(401);
    expect(res.body.success).toBe(false);
    const own = await stack.request('/api/org-api-keys/list-orgs', { headers: { authorization: await admin.bearer('acme-admin') } });
    expect(own.status).toBe(200);
    expect(own.body.data.orgs).toEqual([{ org_id: 1, name: 'Acme Games', tier: 'business', role: 'admin' }]);
  });

  test('memberships do not show among the org’s games and streams (their index entries are under the subject)', async () => {
    const res = await admin.listGames(1);
    expect(res.status).toBe(200);
    expect(res.body.data.games.map((g: { game_id: number }) => g.game_id)).toEqual([101, 102]);
    expect(res.body.data.streams.map((s: { stream_id: number }) => s.stream_id)).toEqual([201, 202]);
  });
});

describe('the membership backfill', () => {
  test('a membership written without index keys is not listed until the backfill; running it again changes nothing', async () => {
    const TableName = stack.tableNames.catalog;
    await stack.services.client.send(
      new PutCommand({ TableName, Item: { pk: 'ORG#2', sk: 'MEMBER#old-member', org_id: 2, subject: 'old-member', role: 'editor' } }),
    );
    expect(await orgsOf('old-member')).toEqual([]);
    const options = { client: stack.services.client, tableName: TableName };
    const seen = await backfillMemberKeys(options);
    expect(seen).toBeGreaterThanOrEqual(9);
    expect(await orgsOf('old-member')).toEqual([{ org_id: 2, name: 'Globex', tier: 'enterprise', role: 'editor' }]);
    expect(await backfillMemberKeys(options)).toBe(seen);
    expect(await orgsOf('old-member')).toHaveLength(1);
  });

  test('the command line', () => {
    expect(parseBackfillArgs(['--catalog-table', 'T', '--region', 'eu-west-1'])).toEqual({ catalogTable: 'T', region: 'eu-west-1' });
    expect(() => parseBackfillArgs([])).toThrow(/usage/);
  });
});

describe('npm start on a data folder seeded before list-orgs', () => {
  test('the seed adds the missing demo memberships and the index keys, and keeps every role, game and org as it was', async () => {
    const TableName = stack.tableNames.catalog;
    const { client, stores } = stack.services;
    // The data folder as the earlier seed left it, then used: four demo memberships without index
    // keys (acme-member's role changed since), no analyst or viewer, game 101 switched off.
    const old = { 'acme-admin': 'admin', 'acme-member': 'viewer', 'globex-admin': 'admin', 'tiny-admin': 'admin' } as Record<
      string,
      string
    >;
    for (const u of DEMO_USERS) {
      const Key = { pk: `ORG#${u.org_id}`, sk: `MEMBER#${u.subject}` };
      await client.send(new DeleteCommand({ TableName, Key }));
      const role = old[u.subject];
      if (role) await client.send(new PutCommand({ TableName, Item: { ...Key, org_id: u.org_id, subject: u.subject, role } }));
    }
    await stores.catalog.setRequireSessionToken('game', 101, false);
    expect(await orgsOf('acme-admin')).toEqual([]);
    expect(await orgsOf('acme-viewer')).toEqual([]);

    await seedCatalog(stack.services);

    const acme = { org_id: 1, name: 'Acme Games', tier: 'business' };
    expect(await orgsOf('acme-admin')).toEqual([{ ...acme, role: 'admin' }]);
    expect(await orgsOf('acme-member')).toEqual([{ ...acme, role: 'viewer' }]);
    expect(await orgsOf('acme-analyst')).toEqual([{ ...acme, role: 'analyst' }]);
    expect(await orgsOf('acme-viewer')).toEqual([{ ...acme, role: 'viewer' }]);
    expect(await orgsOf('globex-admin')).toEqual([{ org_id: 2, name: 'Globex', tier: 'enterprise', role: 'admin' }]);
    expect((await stores.catalog.getPlayable('game', 101))?.require_session_token).toBe(false);
    // The console's calls work for the upgraded users.
    const games = await admin.listGames(1, 'acme-viewer');
    expect(games.status).toBe(200);
    expect(games.body.data.games.find((g: { game_id: number }) => g.game_id === 101).require_session_token).toBe(false);
  });
});
