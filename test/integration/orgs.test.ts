/**
 * list-orgs: the organizations a signed-in subject belongs to (the console's org picker), found
 * through the memberships' `SUBJECT#` entries of the catalog's `by_org` index, and the backfill that
 * gives memberships written before it their index keys.
 */
import { afterAll, beforeAll, describe, expect, test } from '@jest/globals';
import { PutCommand } from '@aws-sdk/lib-dynamodb';
import { parseBackfillArgs } from '../../infra/backfill-memberships.js';
import { backfillMemberKeys } from '../../shared/store/member-items.js';
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
