import type { Clock } from '../platform/time.js';
import { InvalidInput } from '../platform/errors.js';
import type { TokenRecord } from '../sessions/index.js';
import type { RefusalCountRow, UsageRollupStore } from '../audit/index.js';
import type { ReportedToken, TokenReportStore } from './ports.js';
import { ReportTable } from './report-table.js';
import { allowsItem, type KeyScope } from '../sessions/index.js';
import { statusAt } from '../sessions/index.js';

const DAY_MS = 86_400_000;
/** 9999-12-31, the last day of four-digit years. */
const LAST_DAY_MS = Date.parse('9999-12-31T00:00:00.000Z');
/** The shortest token lifetime: the soonest a token can expire, and so start its retention. */
const MIN_LIFETIME_MS = 60_000;

/** What a report without a rollup counts of refused calls: none. */
const NO_REFUSALS: { readonly rows: RefusalCountRow[]; readonly cut?: boolean } = { rows: [] };

/** Longest date range of one report, in days (a month). */
export const MAX_REPORT_DAYS = 31;
/** Most tokens one report reads; past it the report is cut short and says so. */
export const MAX_REPORT_TOKENS = 20_000;

/** What to report on: a range of UTC creation days, optionally one game, stream or key. */
export interface ReportRequest {
  /** First day, `yyyy-mm-dd` (UTC). */
  readonly from: string;
  /** Last day, inclusive. */
  readonly to: string;
  readonly game_id?: number | null | undefined;
  readonly stream_id?: number | null | undefined;
  readonly key_id?: number | null | undefined;
}

/**
 * How many of a set of sessions were created, and where each of them stands now; and how many key
 * calls were refused that day, by rate limit (429) or as forbidden (403: out of the key's scope).
 */
export interface SessionCounts {
  created: number;
  active: number;
  consumed: number;
  expired: number;
  revoked: number;
  rate_limited: number;
  forbidden: number;
}

/** The session report of an organization. */
export interface SessionReport {
  readonly from: string;
  readonly to: string;
  /**
   * The first day whose tokens are certainly all still stored: tokens are removed
   * `TOKEN_RETENTION_DAYS` after they expire, so earlier days may count fewer than were created.
   */
  readonly complete_from: string;
  /**
   * True when the range held more than {@link MAX_REPORT_TOKENS} tokens and only that many were
   * counted, or when the request's deadline stopped a read (a slow database): the counts are then
   * lower bounds.
   */
  readonly truncated: boolean;
  readonly totals: SessionCounts;
  readonly days: ({ date: string } & SessionCounts)[];
  readonly by_target: ({ date: string; game_id: number | null; stream_id: number | null } & SessionCounts)[];
  readonly by_key: ({ date: string; key_id: number } & SessionCounts)[];
}

export interface SessionReportsDeps {
  readonly store: TokenReportStore;
  /** The refused calls counted as they happened (`shared/audit/audit-store.ts`); absent: the report counts none. */
  readonly rollups?: Pick<UsageRollupStore, 'refusalCounts'>;
  readonly clock: Clock;
  readonly tokenRetentionDays: number;
}

/**
 * Session reports, from two reads made together, whatever the range (one query per partition of
 * each: docs/architecture.md, "Usage"): the org's tokens of the range from the tokens' report index,
 * which DynamoDB keeps as tokens are created, consumed and revoked (the status now comes from each
 * token: consumed, revoked, or expired by the clock), and the refused key calls from the usage
 * rollup, counted as they happen. Days are creation days: "consumed" on a day counts the sessions
 * created that day that have been consumed since. Refused calls are counted on the day they were
 * refused: those counted by the rate limit or refused after it (403) with their game or stream, the
 * 429s answered from memory (`shared/keys/refusals-from-memory.ts`) with neither (so by_target and a game or stream
 * filter leave them out).
 */
export class SessionReports {
  constructor(private readonly deps: SessionReportsDeps) {}

  /**
   * The report of one organization. Through an API key (MCP `get_session_report`), `scope` is the
   * key's allow-lists: the report then covers only the games and streams they allow
   * (docs/decisions.md#scopes), and leaves out what names neither, such as 429s tallied from memory.
   * @throws InvalidInput for a reversed or too long range
   */
  async report(orgId: number, request: ReportRequest, scope?: Omit<KeyScope, 'org_id'>): Promise<SessionReport> {
    const days = daysOf(request.from, request.to);
    const covers = (item: Matched) => matches(item, request) && (!scope || allowsItem(scope, item));
    const { store, rollups, clock } = this.deps;
    const [read, refused] = await Promise.all([
      store.tokensCreated(orgId, request.from, request.to, MAX_REPORT_TOKENS),
      rollups ? rollups.refusalCounts(orgId, request.from, request.to) : NO_REFUSALS,
    ]);
    const now = clock.now();
    const inRange = new Set(days);
    // Each token once, of this org and range (a store may hand one twice, or one just outside).
    const unique = new Map(read.records.map((t) => [t.token, t]));
    const selected = [...unique.values()].filter((t) => t.org_id === orgId && inRange.has(createdOn(t)) && covers(t));
    const table = new ReportTable(days);
    for (const token of selected) table.add(createdOn(token), token, statusAt(token, now));
    // A count from memory names no game or stream: per day and key only (ReportTable), never under a target filter.
    for (const row of refused.rows) if (covers(row)) table.add(row.day, row, row.kind, row.count);
    return {
      from: request.from,
      to: request.to,
      complete_from: dayOf(Math.floor((now - this.deps.tokenRetentionDays * DAY_MS - MIN_LIFETIME_MS) / DAY_MS) * DAY_MS + DAY_MS),
      // More tokens than counted, or a read the request's deadline stopped: the counts are what was read.
      truncated: read.more === true || read.cut === true || refused.cut === true,
      ...table.rows(),
    };
  }
}

/**
 * Refuse a range no report may have (reversed, too long, past the calendar) before anything is
 * counted or read: a report request refused for its form spends none of the org's report budget.
 * @throws InvalidInput
 */
export function checkRange(request: { readonly from: string; readonly to: string }): void {
  daysOf(request.from, request.to);
}

/** Every day from `from` to `to`, inclusive. */
function daysOf(from: string, to: string): string[] {
  const start = Date.parse(`${from}T00:00:00.000Z`);
  const end = Date.parse(`${to}T00:00:00.000Z`);
  if (!(start <= end)) throw new InvalidInput('to: must not be before from', { param: 'to' });
  // A day is read up to the next day's start, which for 9999-12-31 has no four-digit year.
  if (end >= LAST_DAY_MS) throw new InvalidInput('to: must be before 9999-12-31', { param: 'to' });
  const length = (end - start) / DAY_MS + 1;
  if (length > MAX_REPORT_DAYS) throw new InvalidInput(`to: the range may span at most ${MAX_REPORT_DAYS} days`, { param: 'to' });
  return Array.from({ length }, (_, i) => dayOf(start + i * DAY_MS));
}

function dayOf(ms: number): string {
  return new Date(ms).toISOString().slice(0, 10);
}

function createdOn(token: Pick<ReportedToken, 'created_at'>): string {
  return token.created_at.slice(0, 10);
}

/** What a filter of the report looks at, in a token or a refused call's record. */
type Matched = Pick<TokenRecord, 'game_id' | 'stream_id' | 'key_id'>;

function matches(item: Matched, request: ReportRequest): boolean {
  return (
    (request.game_id == null || item.game_id === request.game_id) &&
    (request.stream_id == null || item.stream_id === request.stream_id) &&
    (request.key_id == null || item.key_id === request.key_id)
  );
}
