/**
 * An organization's audit records are spread over AUDIT_SHARDS partitions (a time-ordered
 * sort key in one partition caps an org at 1,000 audited calls a second) and still read back as one
 * log, newest first, without gaps or repeats. Every field of a cursor is bounded
 * and checked, so a forged one is a 400, never a 500 from DynamoDB.
 */
import { afterAll, beforeAll, describe, expect, test } from '@jest/globals';
import { ScanCommand } from '@aws-sdk/lib-dynamodb';
import type { AuditRecord } from '../../shared/audit/model.js';
import { AUDIT_SHARDS, auditPartition, auditShard } from '../../shared/audit/audit-store.js';
import { FaultInjector } from '../support/faults.js';
import { startStack, type Stack } from '../support/local-stack.js';

let stack: Stack;
const ORG = 88;
const TOTAL = 240;

const record = (i: number): AuditRecord => ({
  org_id: ORG,
  // Several records share a millisecond: the request id orders them.
  at: new Date(Date.UTC(2026, 5, 1) + Math.floor(i / 3)).toISOString(),
  request_id: `req-${String(i).padStart(4, '0')}`,
  action: 'create-session',
  status: 200,
  key_id: i % 5 === 0 ? 9 : 10,
  key_prefix: null,
  actor: null,
  game_id: 101,
  stream_id: null,
  token_prefix: null,
  source_ip: '127.0.0.1',
  user_agent: 'test',
});

beforeAll(async () => {
  stack = await startStack();
  // All at once, as a busy org's calls would write them.
  await Promise.all(Array.from({ length: TOTAL }, (_, i) => stack.services.stores.audit.put(record(i), 2_000_000_000)));
});
afterAll(() => stack.stop());

async function readAll(limit: number, key_id?: number): Promise<string[][]> {
  const pages: string[][] = [];
  let cursor: string | undefined;
  do {
    const page = await stack.services.stores.audit.page({ org_id: ORG, limit, key_id, cursor });
    pages.push(page.records.map((r) => r.request_id));
    cursor = page.cursor ?? undefined;
  } while (cursor);
  return pages;
}

describe('audit records spread over shards', () => {
  test('one org’s records land on every shard, each on the shard its request id picks', async () => {
    const { Items = [] } = await stack.services.client.send(
      new ScanCommand({ TableName: stack.tableNames.audit, FilterExpression: 'org_id = :o', ExpressionAttributeValues: { ':o': ORG } }),
    );
    expect(Items).toHaveLength(TOTAL);
    const shards = new Set(Items.map((i) => i.pk as string));
    expect(shards.size).toBe(AUDIT_SHARDS);
    for (const item of Items) expect(item.pk).toBe(auditPartition(ORG, item.request_id as string));
  });

  test.each([1, 7, 50, 500])('read back newest first across shards, pages of %d, no gaps or repeats', async (limit) => {
    const pages = await readAll(limit);
    const expected = Array.from({ length: TOTAL }, (_, i) => `req-${String(TOTAL - 1 - i).padStart(4, '0')}`);
    expect(pages.flat()).toEqual(expected);
    expect(pages.every((p) => p.length <= limit)).toBe(true);
  });

  test('the key filter reads across shards too', async () => {
    const ids = (await readAll(4, 9)).flat();
    expect(ids).toEqual(
      Array.from({ length: TOTAL }, (_, i) => TOTAL - 1 - i)
        .filter((i) => i % 5 === 0)
        .map((i) => `req-${String(i).padStart(4, '0')}`),
    );
  });
});

describe('a hot audit shard', () => {
  test('a record whose shard stays throttled goes to the next shard; its rewrite follows it', async () => {
    const faults = new FaultInjector(stack.services.client);
    const audit = stack.services.stores.audit;
    const r = { ...record(9_999), request_id: 'req-hot-shard' };
    faults.arm({ kind: 'throttle', call: (c) => c.command === 'PutItem' && c.table === 'audit', persistent: true });
    const placed = await audit.put(r, 2_000_000_000);
    faults.disarm();
    expect(placed.shard).toBe((auditShard(r.request_id) + 1) % AUDIT_SHARDS);
    await audit.put({ ...placed, status: 429 }, 2_000_000_000);
    const { Items = [] } = await stack.services.client.send(
      new ScanCommand({
        TableName: stack.tableNames.audit,
        FilterExpression: 'request_id = :r',
        ExpressionAttributeValues: { ':r': r.request_id },
      }),
    );
    expect(Items.map((i) => [i.pk, i.status])).toEqual([[`${ORG}#${placed.shard}`, 429]]);
  });
});

describe('forged cursors are 400', () => {
  const admin = async () => ({ authorization: `Bearer ${await stack.issuer.sign('acme-admin')}` });
  const cursor = (value: unknown) => Buffer.from(JSON.stringify(value)).toString('base64url');

  test.each([
    ['a sort key over 1,024 bytes', cursor({ org_id: 1, sk: `2026-06-01T00:00:00.000Z#${'x'.repeat(2000)}` })],
    ['a sort key of another shape', cursor({ org_id: 1, sk: 'not-a-time#r' })],
    ['a number as the sort key', cursor({ org_id: 1, sk: 5 })],
    ['another org', cursor({ org_id: 2, sk: '2026-06-01T00:00:00.000Z#r' })],
    ['an extra field', cursor({ org_id: 1, sk: '2026-06-01T00:00:00.000Z#r', pk: '1#0' })],
    ['not JSON', 'bm90IGpzb24'],
    ['too long to be ours', 'A'.repeat(5000)],
  ])('%s', async (_name, value) => {
    const reply = await stack.request(`/api/org-api-keys?action=audit-log&org_id=1&cursor=${value}`, { headers: await admin() });
    expect([400, 414]).toContain(reply.status);
    expect(reply.body).toMatchObject({ success: false });
  });

  test('a cursor the service gave goes on', async () => {
    const headers = await admin();
    const first = await stack.request('/api/org-api-keys?action=audit-log&org_id=1&limit=1', { headers });
    expect(first.status).toBe(200);
  });
});
