/** The audit stores the domain needs, as ports. */
import { type AuditRecord } from './model.js';

export interface AuditStore {
  /**
   * Write (or overwrite, for the same org/time/request) an audit record.
   * @returns the record as placed (its `shard` set): a rewrite of it lands on the same item
   */
  put(record: AuditRecord, ttl: number): Promise<AuditRecord>;
  /**
   * Remove a record as `put` placed it: the provisional record of a call that ran ahead of its key's
   * read and is served again, or answered with a stored answer (`shared/keys/key-calls.ts`).
   */
  remove(placed: AuditRecord): Promise<void>;
}

/** What a refusal counted in the usage rollup is: forbidden (403) or rate limited (429). */
export type RefusalKind = 'forbidden' | 'rate_limited';

/**
 * A count of refused key calls of one key on one UTC day (`audit-store.ts`): audited ones
 * (403 out of scope, 429 by the counter) with their game or stream, and 429s answered from memory
 * (`shared/keys/refusals-from-memory.ts`), which name neither (both null).
 */
export interface RefusalCountRow {
  readonly day: string;
  readonly kind: RefusalKind;
  readonly key_id: number;
  readonly game_id: number | null;
  readonly stream_id: number | null;
  readonly count: number;
}

/** A change to the usage rollup: `count` (negative: taken back) of one kind, key, day and target. */
export interface RefusalCountChange extends RefusalCountRow {
  readonly org_id: number;
  /**
   * What spreads the org's counts over its rollup partitions: the refused call's request id (so
   * its count goes where its audit record went), or the key for counts from memory.
   */
  readonly spread: string;
}

/** The usage rollup: refused key calls counted per org, day, key and target as they happen. */
export interface UsageRollupStore {
  /** Add a change to its counter (`ttl`: epoch seconds). */
  addRefusals(change: RefusalCountChange, ttl: number): Promise<void>;
  /** Every count of the org from `from` to `to` (UTC days, inclusive); `cut` when the deadline stopped the read. */
  refusalCounts(orgId: number, from: string, to: string): Promise<{ readonly rows: RefusalCountRow[]; readonly cut?: boolean }>;
}

/** One page of an organization's audit log, newest first. */
export interface AuditPage {
  readonly records: AuditRecord[];
  /** Opaque position of the next page; null on the last page. */
  readonly cursor: string | null;
}

/** A record's outcome as the audit log filters it: `success` below status 400, `refused` from 400 on. */
export type AuditOutcome = 'success' | 'refused';

/** What to read from an organization's audit log. */
export interface AuditQuery {
  readonly org_id: number;
  /** Only records of this key. */
  readonly key_id?: number | undefined;
  /** Only records of this action (`update-key`, `create-session`, `mcp:tools/call:create_session`...). */
  readonly action?: string | undefined;
  /** Only successes (status below 400) or only refusals (400 and above). */
  readonly outcome?: AuditOutcome | undefined;
  /** A cursor from an earlier page of the same query. */
  readonly cursor?: string | undefined;
  readonly limit: number;
}

export interface AuditReader {
  /** A page of the log. @throws InvalidInput for a cursor that is not one of this query's. */
  page(query: AuditQuery): Promise<AuditPage>;
}
