import type { Clock } from '../platform/time.js';
import { RateLimited } from '../platform/errors.js';
import type { ReportBudgetStore } from './ports.js';

/**
 * Reports an organization may request a minute, REST `usage` and MCP `get_session_report` together
 * (docs/decisions.md#usage-reports).
 */
export const REPORTS_PER_MINUTE = 30;

/**
 * The organization's report budget of the minute is spent: a `RateLimited` (429 `rate_limited` with
 * `Retry-After`, by THE error table) whose message names the budget rather than a key's window.
 */
class ReportsLimited extends RateLimited {
  constructor(retryAfterSeconds: number) {
    super('minute', retryAfterSeconds);
    this.message = `Report limit exceeded: at most ${REPORTS_PER_MINUTE} usage reports a minute per organization; retry in ${retryAfterSeconds} s`;
  }
}

const MINUTE = 60_000;
/** Organizations remembered as spent at most; beyond it the memory starts afresh (it is only a shortcut). */
const MAX_ORGS = 10_000;

/**
 * The per-organization report budget: a fixed window aligned to the UTC minute, counted in one
 * counter item per org and minute (`ReportBudgetStore.takeReport`: one conditional write). Once the
 * store refused an org's minute, this container refuses the rest of that minute from memory with
 * no write, so a flood of report requests costs one refused write per container and minute, and
 * the item never runs hot. A report is counted once its caller is known to be allowed it (a member
 * with the usage permission, a key with the report scope): an outsider cannot spend an org's budget.
 */
export class ReportBudget {
  /** The minute each org was last seen spent in. */
  private readonly spent = new Map<number, number>();

  constructor(private readonly deps: { readonly store: ReportBudgetStore; readonly clock: Clock }) {}

  /** Count one report of the org. @throws ReportsLimited (429 with `Retry-After`) when the minute's are spent */
  async take(orgId: number): Promise<void> {
    const now = this.deps.clock.now();
    const minute = Math.floor(now / MINUTE) * MINUTE;
    if (this.spent.get(orgId) === minute) throw this.limited(now, minute);
    // Kept an hour past its minute (the TTL sweep is lazy; a later minute never reads it).
    const taken = await this.deps.store.takeReport(orgId, minute, REPORTS_PER_MINUTE, Math.ceil((minute + MINUTE) / 1000) + 3600);
    if (taken) return;
    if (this.spent.size >= MAX_ORGS) this.spent.clear();
    this.spent.set(orgId, minute);
    throw this.limited(now, minute);
  }

  private limited(now: number, minute: number): ReportsLimited {
    return new ReportsLimited(Math.max(1, Math.ceil((minute + MINUTE - now) / 1000)));
  }
}
