/**
 * The audit log's key filter without an index: it reads the org's shards in batches and filters
 * them, several reads per shard and page at most. Pages stay newest first, without gaps or repeats,
 * across batch and shard boundaries; a page may hold fewer records than asked while its cursor goes on.
 */
import { afterAll, beforeAll, describe, expect, test } from '@jest/globals';
import type { AuditRecord } from '../../shared/audit/model.js';
import type { AuditQuery } from '../../shared/audit/ports.js';
import { DynamoAuditStore } from '../../shared/audit/audit-store.js';
import { startStack, type Stack } from '../support/local-stack.js';

let stack: Stack;
const ORG = 77;
const TOTAL = 2_400;
/** Every 300th record is of key 5 (newest first: records 2399, 2099, ... are). */
const isKey5 = (i: number) => i % 300 === 99;

beforeAll(async () => {
  stack = await startStack();
  const audit = stack.services.stores.audit;
  const record = (i: number): AuditRecord => ({
    org_id: ORG,
    at: new Date(Date.UTC(2026, 0, 1) + i * 1000).toISOString(),
    request_id: `r-${String(i).padStart(5, '0')}`,
    action: 'create-session',
    status: 200,
    key_id: isKey5(i) ? 5 : i % 2 ? 6 : null,
    key_prefix: null,
    actor: null,
    game_id: 101,
    stream_id: null,
    token_prefix: null,
    source_ip: '127.0.0.1',
    user_agent: 'test',
  });
  for (let i = 0; i < TOTAL; i += 100) {
    await Promise.all(Array.from({ length: 100 }, (_, j) => audit.put(record(i + j), 2_000_000_000)));
  }
}, 120_000);
afterAll(() => stack.stop());

async function readAll(query: Omit<AuditQuery, 'cursor'>): Promise<{ pages: string[][]; ids: string[] }> {
  const pages: string[][] = [];
  let cursor: string | undefined;
  do {
    const page = await stack.services.stores.audit.page({ ...query, cursor });
    pages.push(page.records.map((r) => r.request_id));
    cursor = page.cursor ?? undefined;
  } while (cursor);
  return { pages, ids: pages.flat() };
}

describe('audit log key filter (no index)', () => {
  const expected = Array.from({ length: TOTAL }, (_, i) => TOTAL - 1 - i)
    .filter(isKey5)
    .map((i) => `r-${String(i).padStart(5, '0')}`);

  test('every record of the key, newest first, across read batches, without gaps or repeats', async () => {
    expect(expected.length).toBe(8);
    for (const limit of [1, 3, 8, 50]) {
      const { pages, ids } = await readAll({ org_id: ORG, key_id: 5, limit });
      expect(ids).toEqual(expected);
      expect(pages.every((p) => p.length <= limit)).toBe(true);
    }
  });

  /** The store with a much smaller read cap (2 reads of 20 records per shard), to reach it with 2,400 records. */
  const capped = () => new DynamoAuditStore({ client: stack.services.client, tableName: stack.tableNames.audit }, { batch: 20, reads: 2 });

  test('a page reads a bounded number of records: it may hold fewer than `limit`, and its cursor goes on', async () => {
    const first = await capped().page({ org_id: ORG, key_id: 5, limit: 8 });
    // 8 shards × 40 records examined: the newest ~320 of 2,400 hold at most 2 of the key's 8.
    expect(first.records.length).toBeLessThan(8);
    expect(first.cursor).not.toBeNull();
    for (const limit of [1, 3, 8]) {
      const pages: string[][] = [];
      let cursor: string | undefined;
      do {
        const page = await capped().page({ org_id: ORG, key_id: 5, limit, cursor });
        pages.push(page.records.map((r) => r.request_id));
        cursor = page.cursor ?? undefined;
      } while (cursor);
      expect(pages.flat()).toEqual(expected);
      expect(pages.some((p) => p.length < limit)).toBe(true);
    }
  });

  test('a key without records: pages may be empty while the cursor goes on, and the read ends', async () => {
    const { ids, pages } = await readAll({ org_id: ORG, key_id: 12345, limit: 10 });
    expect(ids).toEqual([]);
    expect(pages).toEqual([[]]);
    let cursor: string | undefined;
    let reads = 0;
    do {
      const page = await capped().page({ org_id: ORG, key_id: 12345, limit: 10, cursor });
      expect(page.records).toEqual([]);
      cursor = page.cursor ?? undefined;
      reads++;
    } while (cursor);
    expect(reads).toBeGreaterThan(1);
  });

  test('the unfiltered log is unchanged: pages of exactly `limit`', async () => {
    const page = await stack.services.stores.audit.page({ org_id: ORG, limit: 7 });
    expect(page.records).toHaveLength(7);
    expect(page.records[0]!.request_id).toBe(`r-0${TOTAL - 1}`);
    expect(page.cursor).not.toBeNull();
  });
});
