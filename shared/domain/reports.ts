import type { Clock } from './clock.js';
import { errorStatus, InvalidInput } from './errors.js';
import type { TokenRecord } from './model.js';
import type { AuditedRefusal, DayRecords, RefusalTallies, RefusalTallyStore, TokenReportStore } from './ports.js';
import { ReportTable } from './report-table.js';
import { isAllowed, isRestricted, namedTarget, type KeyScope } from './scope.js';
import { statusAt } from './sessions.js';

const DAY_MS = 86_400_000;
/** 9999-12-31, the last day of four-digit years. */
const LAST_DAY_MS = Date.parse('9999-12-31T00:00:00.000Z');
/** The status of a refusal by rate limit (any other refusal the report counts is a 403). */
const RATE_LIMITED = errorStatus.RateLimited;
/** The shortest token lifetime: the soonest a token can expire, and so start its retention. */
const MIN_LIFETIME_MS = 60_000;

/** Longest date range of one report, in days (a month: a bounded number of index queries). */
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
   * counted, when a day's read of audit records stopped at its bound (many refused calls), or when
   * the request's deadline stopped a read (a slow database): the counts are then lower bounds.
   */
  readonly truncated: boolean;
  readonly totals: SessionCounts;
  readonly days: ({ date: string } & SessionCounts)[];
  readonly by_target: ({ date: string; game_id: number | null; stream_id: number | null } & SessionCounts)[];
  readonly by_key: ({ date: string; key_id: number } & SessionCounts)[];
}

export interface SessionReportsDeps {
  readonly store: TokenReportStore;
  /** The tallies of 429s answered from memory (`refusal-tally.ts`); absent: only audited refusals count. */
  readonly tallies?: Pick<RefusalTallyStore, 'refusalTallies'>;
  readonly clock: Clock;
  readonly tokenRetentionDays: number;
}

/**
 * Session reports, computed at read time from the tokens themselves: a token's creation day comes
 * from the audit record of its mint (written on the create path anyway), and its status from the
 * token (consumed, revoked, or expired by the clock). Nothing is counted on the create or consume
 * path, so reports add no write and no round trip there. Days are creation days: "consumed" on a day counts the sessions
 * created that day that have been consumed since. Refused calls are counted on the day they were
 * refused: those counted by the rate limit or refused after it (403) from their audit records (the
 * same read as the mints'), the 429s answered from memory from the key's tally of the day, which
 * names no game or stream (so by_target and a game or stream filter leave them out).
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
    const covers = (item: Matched) => matches(item, request) && (!scope || within(item, scope));
    const { store, clock } = this.deps;
    const perDay = await Promise.all(
      days.map((day) =>
        store.recordsOn ? store.recordsOn(orgId, day, MAX_REPORT_TOKENS) : store.tokensCreatedOn(orgId, day, MAX_REPORT_TOKENS).then(only),
      ),
    );
    // A day's read may run a moment into the next (shared/store/token-report-store.ts): once each.
    const found = [...new Set(perDay.flatMap((d) => d.tokens))];
    const truncated = found.length > MAX_REPORT_TOKENS;
    // A day's read cut short by refused calls may have missed tokens and refusals too.
    const cut = perDay.some((d) => d.cut === true);
    const [read, tallied] = await Promise.all([
      store.getMany(truncated ? found.slice(0, MAX_REPORT_TOKENS) : found),
      this.tallies(
        perDay.flatMap((d) => d.refusals).filter((r) => r.status === RATE_LIMITED && covers(r)),
        request,
        scope !== undefined && isRestricted(scope),
      ),
    ]);
    const now = clock.now();
    const inRange = new Set(days);
    const selected = read.records.filter((t) => t.org_id === orgId && inRange.has(t.created_at.slice(0, 10)) && covers(t));
    const refusals = perDay.flatMap((d) => d.refusals).filter(covers);
    const table = new ReportTable(days);
    for (const token of selected) table.add(createdOn(token), token, statusAt(token, now));
    for (const refusal of refusals)
      table.add(refusal.at.slice(0, 10), refusal, refusal.status === RATE_LIMITED ? 'rate_limited' : 'forbidden');
    for (const [label, count] of tallied.tallies) {
      const [keyId, date] = label.split('|') as [string, string];
      table.add(date, { key_id: Number(keyId), game_id: null, stream_id: null }, 'rate_limited', count, false);
    }
    return {
      from: request.from,
      to: request.to,
      complete_from: dayOf(Math.floor((now - this.deps.tokenRetentionDays * DAY_MS - MIN_LIFETIME_MS) / DAY_MS) * DAY_MS + DAY_MS),
      // The tokens or tallies stopped at the request's deadline: the counts are what was read in time.
      truncated: truncated || cut || read.cut === true || tallied.cut === true,
      ...table.rows(),
    };
  }

  /**
   * The tallies of the (key, day) pairs with an audited 429: a key is only refused from memory
   * once a counted call of it was refused that day in that container, so no other pair has one.
   */
  private async tallies(limited: readonly AuditedRefusal[], request: ReportRequest, restricted: boolean): Promise<RefusalTallies> {
    // A tally names no game or stream: it has no place in a report of some games or streams only.
    if (!this.deps.tallies || limited.length === 0 || restricted || request.game_id != null || request.stream_id != null) {
      return { tallies: new Map() };
    }
    return this.deps.tallies.refusalTallies(limited.map((r) => ({ key_id: r.key_id, day: r.at.slice(0, 10) })));
  }
}

/** A day's tokens without refusals (a store that cannot read them). */
function only(tokens: string[]): DayRecords {
  return { tokens, refusals: [] };
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

function createdOn(token: TokenRecord): string {
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

/** Whether a key's allow-lists cover an item: any, when neither is set; else only an allowed game or stream. */
function within(item: Matched, scope: Omit<KeyScope, 'org_id'>): boolean {
  if (!isRestricted(scope)) return true;
  const target = namedTarget(item);
  return target !== undefined && isAllowed(scope, target);
}
