/**
 * The account seed script, against the embedded DynamoDB with the service's own tables: what it
 * writes is what the functions read (the catalog store), and it refuses what would go wrong.
 */
import { afterAll, beforeAll, describe, expect, test } from '@jest/globals';
import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { documentClient, ensureTables, startEmbeddedDynamo, type EmbeddedDynamo } from '../../infra/local/dynamo.js';
import { AccountSeedSchema, parseSeedArgs, seedAccount } from '../../infra/seed-account.js';
import { parseTierArgs } from '../../infra/set-org-tier.js';
import { generateRawKey, newKeyRecord } from '../../shared/keys/api-keys.js';
import { hashApiKey } from '../../shared/keys/credential.js';
import { OrgTiers } from '../../shared/keys/org-tiers.js';
import { DynamoKeyStore } from '../../shared/keys/key-store.js';
import { DynamoCatalogStore } from '../../shared/catalog/catalog-store.js';
import { stopAll } from '../support/teardown.js';

let dynamo: EmbeddedDynamo;
let client: DynamoDBDocumentClient;
let catalog: DynamoCatalogStore;
beforeAll(async () => {
  dynamo = await startEmbeddedDynamo({ scratch: true });
  await ensureTables(dynamo.connection, dynamo.tableNames);
  client = documentClient(dynamo.connection);
  catalog = new DynamoCatalogStore({ client, tableName: dynamo.tableNames.catalog });
});
// Each step runs even when the one before fails (or never started): no server outlives the file.
afterAll(() =>
  stopAll(
    () => client?.destroy(),
    () => dynamo?.close(),
  ),
);

const seedFile = {
  org: { org_id: 7, slug: 'studio-seven', name: 'Studio Seven' },
  members: [{ subject: 'idp|admin-1' }],
  games: [{ id: 7001, name: 'Wheel', content_url: 'https://games.example.com/wheel' }],
  streams: [{ id: 7101, name: 'Live', content_url: 'https://streams.example.com/live', require_session_token: false }],
};

describe('seedAccount', () => {
  test('writes the org, the first owner and the playables, readable by the service', async () => {
    const result = await seedAccount(catalog, AccountSeedSchema.parse(seedFile));
    expect(result.playables).toHaveLength(2);
    expect(await catalog.getOrg(7)).toMatchObject({ org_id: 7, slug: 'studio-seven', name: 'Studio Seven', tier: 'business' });
    expect(await catalog.getRole(7, 'idp|admin-1')).toBe('owner');
    expect(await catalog.getPlayable('game', 7001)).toEqual({
      kind: 'game',
      id: 7001,
      org_id: 7,
      org_slug: 'studio-seven',
      name: 'Wheel',
      require_session_token: true,
      content_url: 'https://games.example.com/wheel',
    });
    expect(await catalog.getPlayable('stream', 7101)).toMatchObject({ org_id: 7, require_session_token: false });
  });

  test('running it again with the same file changes nothing', async () => {
    await expect(seedAccount(catalog, AccountSeedSchema.parse(seedFile))).resolves.toBeDefined();
    expect(await catalog.getRole(7, 'idp|admin-1')).toBe('owner');
  });

  test('refuses to change the tier of an existing organization (its keys carry a copy)', async () => {
    const changed = AccountSeedSchema.parse({ ...seedFile, org: { ...seedFile.org, tier: 'enterprise' } });
    await expect(seedAccount(catalog, changed)).rejects.toThrow(/set-org-tier/);
    expect((await catalog.getOrg(7))!.tier).toBe('business');
  });

  test('set-org-tier’s change reaches the org’s keys, and seeding again keeps the tier version they carry', async () => {
    const keys = new DynamoKeyStore({ client, tableName: dynamo.tableNames.keys });
    const raw = generateRawKey();
    await keys.create(newKeyRecord(raw, 70, (await catalog.getOrg(7))!, { name: 'k' }, Date.now()));
    const tiers = new OrgTiers({ orgs: catalog, keys });
    const change = await tiers.change(7, 'enterprise');
    expect(change).toMatchObject({ tier: 'enterprise', keys: 1 });
    await seedAccount(catalog, AccountSeedSchema.parse({ ...seedFile, org: { ...seedFile.org, tier: 'enterprise' } }));
    expect((await catalog.getOrg(7))!.tier_version).toBe(change.version);
    // The next change is newer than what the key carries, so it reaches the key.
    await tiers.change(7, 'pro');
    expect(await keys.getByHash(hashApiKey(raw))).toMatchObject({ org_tier: 'pro', org_tier_version: change.version + 1 });
    await expect(tiers.change(99, 'pro')).rejects.toThrow(/not found/);
  });
});

describe('the seed file and command line', () => {
  test('a seed needs an owner or admin, a valid slug and tier, absolute content URLs', () => {
    expect(AccountSeedSchema.safeParse({ ...seedFile, members: [{ subject: 'x', role: 'viewer' }] }).success).toBe(false);
    expect(AccountSeedSchema.safeParse({ ...seedFile, members: [] }).success).toBe(false);
    expect(AccountSeedSchema.safeParse({ ...seedFile, org: { ...seedFile.org, slug: 'Not A Slug' } }).success).toBe(false);
    expect(AccountSeedSchema.safeParse({ ...seedFile, org: { ...seedFile.org, tier: 'gold' } }).success).toBe(false);
    expect(AccountSeedSchema.safeParse({ ...seedFile, games: [{ id: 1, name: 'g', content_url: '/relative' }] }).success).toBe(false);
  });

  test('set-org-tier arguments: both tables, an optional region, the org and a tier', () => {
    expect(parseTierArgs(['--catalog-table', 'C', '--keys-table', 'K', '7', 'pro'])).toEqual({
      catalogTable: 'C',
      keysTable: 'K',
      region: undefined,
      orgId: 7,
      tier: 'pro',
    });
    expect(() => parseTierArgs(['--catalog-table', 'C', '7', 'pro'])).toThrow(/usage/);
    expect(() => parseTierArgs(['--catalog-table', 'C', '--keys-table', 'K', 'x', 'pro'])).toThrow(/usage/);
    expect(() => parseTierArgs(['--catalog-table', 'C', '--keys-table', 'K', '7', 'gold'])).toThrow(/tier must be one of/);
  });

  test('arguments: the table, an optional region, one file', () => {
    expect(parseSeedArgs(['--table', 'Catalog-123', '--region', 'eu-west-1', 'seed.json'])).toEqual({
      table: 'Catalog-123',
      region: 'eu-west-1',
      file: 'seed.json',
    });
    expect(() => parseSeedArgs(['seed.json'])).toThrow(/usage/);
    expect(() => parseSeedArgs(['--table', 't'])).toThrow(/usage/);
  });
});
