/**
 * The audit log's pages as the console shows them: changes and key usage by default, the admins'
 * reads one click away, and every page full.
 *
 * The audit-log operation filters by one key, one action and one outcome (docs/api.md#audit-log-filters),
 * not by "every action but the reads", so the console leaves the reads out itself. It does not
 * merely hide rows of a page: it reads on (the service's `next_cursor`) until the page holds
 * {@link AUDIT_PAGE_SIZE} records or the log ends. The same reading on fills a page the service's
 * own filters left short (a filtered page may hold fewer records than asked, even none, while its
 * cursor leads on). Reads per page are bounded ({@link MAX_READS_PER_PAGE}): past them, the page
 * shows what it found and "Older" goes on from there.
 */
import { READ_ACTIONS } from './audit-actions.js';

/** One record, as far as the filtering needs it. */
export interface AuditRow {
  readonly action: string;
}

/** One page of the audit-log operation. */
export interface AuditAnswer<R extends AuditRow> {
  readonly records: readonly R[];
  readonly next_cursor: string | null;
}

/** Records a page of the console shows (at least, unless the log ends or the reads run out). */
export const AUDIT_PAGE_SIZE = 20;
/** Records asked per request while reads are left out (the service's most is 100). */
const FILL_LIMIT = 50;
/** Requests one page may take to fill itself. */
export const MAX_READS_PER_PAGE = 5;

/** The filters of a page; `withReads` false leaves {@link READ_ACTIONS} out. */
export interface AuditPageQuery {
  readonly withReads: boolean;
  /** The action asked for ('' for any): asking for a read action shows the reads. */
  readonly action: string;
  readonly cursor: string | undefined;
}

/**
 * A page: the records of as many of the service's pages as it takes (read newest first, from
 * `query.cursor`) to hold {@link AUDIT_PAGE_SIZE} records, and the cursor of the next.
 * @param fetch one request of the operation, with this cursor and limit
 */
export async function auditPage<R extends AuditRow>(
  query: AuditPageQuery,
  fetch: (cursor: string | undefined, limit: number) => Promise<AuditAnswer<R>>,
): Promise<AuditAnswer<R>> {
  const hideReads = !query.withReads && !READ_ACTIONS.has(query.action);
  const records: R[] = [];
  let cursor = query.cursor;
  for (let read = 0; read < MAX_READS_PER_PAGE; read++) {
    const answer = await fetch(cursor, hideReads ? FILL_LIMIT : AUDIT_PAGE_SIZE - records.length);
    records.push(...(hideReads ? answer.records.filter((r) => !READ_ACTIONS.has(r.action)) : answer.records));
    cursor = answer.next_cursor ?? undefined;
    if (cursor === undefined || records.length >= AUDIT_PAGE_SIZE) break;
  }
  return { records, next_cursor: cursor ?? null };
}
