/**
 * The console's audit log pages: changes and key usage by default, the reads
 * (`list-keys`) one click away, and a first page full even when the newest records are reads.
 */
import { describe, expect, test } from '@jest/globals';
import { AUDIT_PAGE_SIZE, auditPage, MAX_READS_PER_PAGE, type AuditAnswer } from '../../infra/console/parts/audit-pages.js';

type Row = { action: string; n: number };

/** A log of `rows`, newest first, paged by the service as `audit-log` does (cursor: the next index). */
function service(rows: readonly Row[]) {
  const calls: { cursor: string | undefined; limit: number }[] = [];
  const fetch = async (cursor: string | undefined, limit: number): Promise<AuditAnswer<Row>> => {
    calls.push({ cursor, limit });
    const from = Number(cursor ?? 0);
    const next = from + limit;
    return { records: rows.slice(from, next), next_cursor: next < rows.length ? String(next) : null };
  };
  return { fetch, calls };
}

/** 120 reads (the console's own list-keys), then 80 changes. */
const LOG: Row[] = [
  ...Array.from({ length: 120 }, (_, n) => ({ action: 'list-keys', n })),
  ...Array.from({ length: 80 }, (_, n) => ({ action: n % 2 ? 'update-key' : 'create-session', n: 120 + n })),
];

describe('the audit log pages of the console', () => {
  test('by default a page leaves the reads out and still holds a full page: it reads on past them', async () => {
    const { fetch } = service(LOG);
    const page = await auditPage({ withReads: false, action: '', cursor: undefined }, fetch);
    expect(page.records.length).toBeGreaterThanOrEqual(AUDIT_PAGE_SIZE);
    expect(page.records.some((r) => r.action === 'list-keys')).toBe(false);
    expect(page.records[0]).toEqual(LOG[120]);
    // The next page starts where this one stopped reading: nothing is skipped or shown twice.
    const older = await auditPage({ withReads: false, action: '', cursor: page.next_cursor ?? undefined }, fetch);
    expect([...page.records, ...older.records]).toEqual(LOG.slice(120));
    expect(older.next_cursor).toBeNull();
  });

  test('with the reads shown (or asked for by name), a page is the log as it is, a page long', async () => {
    for (const query of [
      { withReads: true, action: '' },
      { withReads: false, action: 'list-keys' },
    ]) {
      const page = await auditPage({ ...query, cursor: undefined }, service(LOG).fetch);
      expect(page.records).toEqual(LOG.slice(0, AUDIT_PAGE_SIZE));
      expect(page.next_cursor).toBe(String(AUDIT_PAGE_SIZE));
    }
  });

  test('a short page of the service (its own filters) is filled from the next; the reads per page are bounded', async () => {
    const short = service(LOG.slice(120));
    const fetch = async (cursor: string | undefined, limit: number) => short.fetch(cursor, Math.min(limit, 3));
    const page = await auditPage({ withReads: true, action: 'update-key', cursor: undefined }, fetch);
    expect(page.records).toEqual(LOG.slice(120, 120 + 3 * MAX_READS_PER_PAGE));
    expect(short.calls).toHaveLength(MAX_READS_PER_PAGE);
    expect(page.next_cursor).toBe(String(3 * MAX_READS_PER_PAGE));
  });
});
