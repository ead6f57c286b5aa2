/**
 * Read-after-write of key management where the `by_org` index lags, as it may on AWS (neither
 * emulator shows it: test/support/lagging-index.ts). Every admin write right after a create finds
 * the key through its id item, a strongly consistent read; the list alone reads the index, and may
 * miss a key for that moment (docs/decisions.md, "Key lookups by id").
 */
import { afterAll, afterEach, beforeAll, describe, expect, test } from '@jest/globals';
import { DeleteCommand } from '@aws-sdk/lib-dynamodb';
import { parseBackfillArgs } from '../../infra/backfill-key-ids.js';
import { backfillIdItems, idItemKey } from '../../shared/keys/key-id-items.js';
import { adminApi, type AdminApi } from '../support/admin-api.js';
import { lagIndexes, type LaggingIndexes } from '../support/lagging-index.js';
import { startStack, type Stack } from '../support/local-stack.js';

let stack: Stack;
let admin: AdminApi;
let lag: LaggingIndexes;
beforeAll(async () => {
  stack = await startStack();
  admin = adminApi(stack);
  lag = lagIndexes(stack.services.client, [stack.tableNames.keys]);
});
afterEach(() => lag.release());
afterAll(() => stack.stop());

const createSession = (key: string) => stack.post('create-session', { game_id: 101 }, { 'x-api-key': key });

/** A key created while the index stands still: the index will not show it. */
async function freshKey(): Promise<{ id: number; key: string }> {
  await lag.freeze();
  const res = await admin.create({ org_id: 1, name: 'fresh', rate_limit_per_minute: 1000, rate_limit_per_day: 100_000 });
  expect(res.status).toBe(200);
  stack.secrets.noteRawKey(res.body.data.key);
  return { id: res.body.data.id, key: res.body.data.key };
}

const listedIds = async () => ((await admin.list(1)).body.data as { id: number }[]).map((k) => k.id);

describe('key management while the index lags behind the table', () => {
  test('the layer lags: the list (the one read of the index) does not show a key just created, then does', async () => {
    const { id } = await freshKey();
    const served = lag.served;
    expect(await listedIds()).not.toContain(id);
    expect(lag.served).toBe(served + 1);
    lag.release();
    expect(await listedIds()).toContain(id);
  });

  test('a key just created is revoked at once (a leak noticed at once): 200, and it stops working', async () => {
    const { id, key } = await freshKey();
    const res = await admin.update({ id, org_id: 1, is_active: false });
    expect([res.status, res.body.data?.is_active]).toEqual([200, false]);
    expect((await createSession(key)).status).toBe(401);
  });

  test('a key just created is changed at once: PATCH answers the changed key', async () => {
    const { id } = await freshKey();
    const res = await admin.update({ id, org_id: 1, name: 'renamed at once' });
    expect([res.status, res.body.data?.name]).toEqual([200, 'renamed at once']);
  });

  test('a key just created is deleted at once, and then it is gone (404, and it stops working)', async () => {
    const { id, key } = await freshKey();
    expect((await admin.remove(id, 1)).status).toBe(200);
    expect((await admin.remove(id, 1)).status).toBe(404);
    expect((await admin.update({ id, org_id: 1, name: 'late' })).status).toBe(404);
    expect((await createSession(key)).status).toBe(401);
  });

  test('a key just created is rotated at once, and its replacement is rotated at once too', async () => {
    const { id } = await freshKey();
    const first = await admin.rotate({ id, org_id: 1, grace_period_minutes: 0 });
    expect([first.status, first.body.data?.previous?.rotated_to]).toEqual([200, first.body.data?.id]);
    stack.secrets.noteRawKey(first.body.data.key);
    const second = await admin.rotate({ id: first.body.data.id, org_id: 1, grace_period_minutes: 5 });
    expect(second.status).toBe(200);
    stack.secrets.noteRawKey(second.body.data.key);
    expect((await createSession(second.body.data.key)).status).toBe(200);
  });

  test('a key just created stays out of reach of another org’s admin (404 by id, as before)', async () => {
    const { id } = await freshKey();
    expect((await admin.update({ id, org_id: 2, is_active: false }, 'globex-admin')).status).toBe(404);
    expect((await admin.remove(id, 2, 'globex-admin')).status).toBe(404);
    expect((await admin.update({ id, org_id: 1, name: 'still here' })).status).toBe(200);
  });
});

describe('keys stored before id items existed (docs/deploy.md, "Upgrading")', () => {
  test('without its id item a key is not found by id (404); the backfill gives it one, and running it again changes nothing', async () => {
    const { id } = await freshKey();
    lag.release();
    await stack.services.client.send(new DeleteCommand({ TableName: stack.tableNames.keys, Key: { key_hash: idItemKey(id) } }));
    expect((await admin.update({ id, org_id: 1, name: 'before the backfill' })).status).toBe(404);
    const options = { client: stack.services.client, tableName: stack.tableNames.keys };
    const seen = await backfillIdItems(options);
    expect(seen).toBeGreaterThanOrEqual(1);
    expect(await backfillIdItems(options)).toBe(seen);
    expect((await admin.update({ id, org_id: 1, name: 'after the backfill' })).status).toBe(200);
    expect((await listedIds()).filter((k) => k === id)).toEqual([id]);
  });

  test('the backfill command line', () => {
    expect(parseBackfillArgs(['--keys-table', 'T', '--region', 'eu-west-1'])).toEqual({ keysTable: 'T', region: 'eu-west-1' });
    expect(() => parseBackfillArgs([])).toThrow(/usage/);
  });
});
