import type { Clock } from './clock.js';
import { InvalidInput } from './errors.js';
import type { TokenRecord, TokenStatus } from './model.js';
import type { TokenReportStore } from './ports.js';
import { statusAt } from './sessions.js';

const DAY_MS = 86_400_000;
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

/** How many of a set of sessions were created, and where each of them stands now. */
export interface SessionCounts {
  created: number;
  active: number;
  consumed: number;
  expired: number;
  revoked: number;
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
  /** True when the range held more than {@link MAX_REPORT_TOKENS} tokens and only that many were counted. */
  readonly truncated: boolean;
  readonly totals: SessionCounts;
  readonly days: ({ date: string } & SessionCounts)[];
  readonly by_target: ({ date: string; game_id: number | null; stream_id: number | null } & SessionCounts)[];
  readonly by_key: ({ date: string; key_id: number } & SessionCounts)[];
}

export interface SessionReportsDeps {
  readonly store: TokenReportStore;
  readonly clock: Clock;
  readonly tokenRetentionDays: number;
}

/**
 * Session reports, computed at read time from the tokens themselves: a token's creation day comes
 * from the audit record of its mint (written on the create path anyway), and its status from the
 * token (consumed, revoked, or expired by the clock). Nothing is counted on the create or consume
 * path, so reports add no write and no round trip there. Days are creation days: "consumed" on a day counts the sessions
 * created that day that have been consumed since.
 */
export class SessionReports {
  constructor(private readonly deps: SessionReportsDeps) {}

  /** The report of one organization. @throws InvalidInput for a reversed or too long range */
  async report(orgId: number, request: ReportRequest): Promise<SessionReport> {
    const days = daysOf(request.from, request.to);
    const { store, clock } = this.deps;
    const perDay = await Promise.all(days.map((day) => store.tokensCreatedOn(orgId, day, MAX_REPORT_TOKENS)));
    // A day's read may run a moment into the next (shared/store/token-report-store.ts): once each.
    const found = [...new Set(perDay.flat())];
    const truncated = found.length > MAX_REPORT_TOKENS;
    const records = await store.getMany(truncated ? found.slice(0, MAX_REPORT_TOKENS) : found);
    const now = clock.now();
    const inRange = new Set(days);
    const selected = records.filter((t) => t.org_id === orgId && inRange.has(t.created_at.slice(0, 10)) && matches(t, request));
    return {
      from: request.from,
      to: request.to,
      complete_from: dayOf(Math.floor((now - this.deps.tokenRetentionDays * DAY_MS - MIN_LIFETIME_MS) / DAY_MS) * DAY_MS + DAY_MS),
      truncated,
      totals: count(selected, now),
      days: days.map((date) => ({
        date,
        ...count(
          selected.filter((t) => createdOn(t) === date),
          now,
        ),
      })),
      by_target: groups(selected, now, (t) => `${createdOn(t)}|${t.game_id !== null ? `g${pad(t.game_id)}` : `s${pad(t.stream_id)}`}`).map(
        ([t, counts]) => ({
          date: createdOn(t),
          game_id: t.game_id,
          stream_id: t.stream_id,
          ...counts,
        }),
      ),
      by_key: groups(selected, now, (t) => `${createdOn(t)}|${pad(t.key_id)}`).map(([t, counts]) => ({
        date: createdOn(t),
        key_id: t.key_id,
        ...counts,
      })),
    };
  }
}

/** Every day from `from` to `to`, inclusive. */
function daysOf(from: string, to: string): string[] {
  const start = Date.parse(`${from}T00:00:00.000Z`);
  const end = Date.parse(`${to}T00:00:00.000Z`);
  if (!(start <= end)) throw new InvalidInput('to: must not be before from');
  const length = (end - start) / DAY_MS + 1;
  if (length > MAX_REPORT_DAYS) throw new InvalidInput(`to: the range may span at most ${MAX_REPORT_DAYS} days`);
  return Array.from({ length }, (_, i) => dayOf(start + i * DAY_MS));
}

function dayOf(ms: number): string {
  return new Date(ms).toISOString().slice(0, 10);
}

function createdOn(token: TokenRecord): string {
  return token.created_at.slice(0, 10);
}

function matches(token: TokenRecord, request: ReportRequest): boolean {
  return (
    (request.game_id == null || token.game_id === request.game_id) &&
    (request.stream_id == null || token.stream_id === request.stream_id) &&
    (request.key_id == null || token.key_id === request.key_id)
  );
}

function count(tokens: readonly TokenRecord[], now: number): SessionCounts {
  const counts: SessionCounts = { created: tokens.length, active: 0, consumed: 0, expired: 0, revoked: 0 };
  for (const token of tokens) counts[statusAt(token, now) satisfies TokenStatus]++;
  return counts;
}

/** An id as a fixed-width label part, so that labels sort by number. */
function pad(id: number | null): string {
  return String(id ?? 0).padStart(16, '0');
}

/** Tokens grouped by a label, each group as (a member, its counts), in label order. */
function groups(tokens: readonly TokenRecord[], now: number, label: (t: TokenRecord) => string): [TokenRecord, SessionCounts][] {
  const byLabel = new Map<string, TokenRecord[]>();
  for (const token of tokens) {
    const key = label(token);
    const members = byLabel.get(key);
    if (members) members.push(token);
    else byLabel.set(key, [token]);
  }
  return [...byLabel.keys()].sort().map((key) => {
    const members = byLabel.get(key)!;
    return [members[0]!, count(members, now)];
  });
}
