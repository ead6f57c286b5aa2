/**
 * The audit log's key filter without an index: it reads the org's partition in batches and filters
 * it, several reads per page at most. Pages stay newest first, without gaps or repeats, across
 * batch boundaries; a page may hold fewer records than asked while its cursor goes on.
 */
import { afterAll, beforeAll, describe, expect, test } from '@jest/globals';
import type { AuditRecord } from '../../shared/domain/model.js';
import type { AuditQuery } from '../../shared/domain/ports.js';
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

  test('a page reads 2,000 records at most: it may hold fewer than `limit`, and its cursor goes on', async () => {
    const first = await stack.services.stores.audit.page({ org_id: ORG, key_id: 5, limit: 8 });
    // The newest 2,000 records hold 6 of the key’s 8.
    expect(first.records.map((r) => r.request_id)).toEqual(expected.slice(0, 6));
    const second = await stack.services.stores.audit.page({ org_id: ORG, key_id: 5, limit: 8, cursor: first.cursor! });
    expect(second.records.map((r) => r.request_id)).toEqual(expected.slice(6));
    expect(second.cursor).toBeNull();
  });

  test('a key without records: pages may be empty while the cursor goes on, and the read ends', async () => {
    const { ids, pages } = await readAll({ org_id: ORG, key_id: 12345, limit: 10 });
    expect(ids).toEqual([]);
    expect(pages).toEqual([[], []]);
  });

  test('the unfiltered log is unchanged: pages of exactly `limit`', async () => {
    const page = await stack.services.stores.audit.page({ org_id: ORG, limit: 7 });
    expect(page.records).toHaveLength(7);
    expect(page.records[0]!.request_id).toBe(`r-0${TOTAL - 1}`);
    expect(page.cursor).not.toBeNull();
  });
});
