/**
 * Per-organization budgets of calls that cost the service more than a read (usage reports; hand
 * sends of webhooks): fixed windows aligned to the UTC minute and, when the budget has one, the UTC
 * day, counted in ONE counter item per org and window (`OrgBudgetStore.takeBudget`: one conditional
 * write, both windows at once, so a call refused by the day is not counted in its minute). Once the
 * store refused an org, this container refuses it from memory with no write until the spent window
 * ends, so a flood costs one refused write per container and window, and the item never runs hot.
 * A call is counted once its caller is known to be allowed it: an outsider cannot spend an org's
 * budget. Each budget is one {@link OrgBudget} with its {@link BudgetPolicy}; the operations that
 * share a budget share its instance's policy (and so its counter items).
 */
import { RateLimited } from './errors.js';
import type { Clock } from './time.js';

const MINUTE = 60_000;
const DAY = 24 * 60 * MINUTE;
/** Counter items are kept this long past their window (the TTL sweep is lazy; a later window never reads them). */
const KEPT_PAST_WINDOW_SECONDS = 3600;
/** Organizations remembered as spent at most; beyond it the memory starts afresh (it is only a shortcut). */
const MAX_ORGS = 10_000;

/** What a budget counts, how much of it an org may spend, and how its 429 says so. */
export interface BudgetPolicy {
  /** Its counter items' prefix: `<name>#<org_id>#<window start ms>`. */
  readonly name: string;
  /** The 429 message's first words (`Report limit exceeded`). */
  readonly title: string;
  /** What is counted, in the 429's words (`usage reports`). */
  readonly what: string;
  readonly perMinute: number;
  /** Absent: no daily window. */
  readonly perDay?: number;
}

/** One count of a counter item and its limit. */
export interface BudgetCount {
  readonly field: string;
  readonly limit: number;
}

/** Where budgets are counted (the counters table: shared/platform/dynamo/budget-store.ts). */
export interface OrgBudgetStore {
  /**
   * Add one to each count of the item `pk` (its TTL set to `ttl`, epoch seconds), unless one of
   * them has reached its limit. @returns undefined when counted; else the fields whose limit was
   * reached, as the refused write found them
   */
  takeBudget(pk: string, counts: readonly BudgetCount[], ttl: number): Promise<readonly string[] | undefined>;
}

/** An org's budget of one window is spent: 429 `rate_limited` with `Retry-After` (THE error table), its message naming the budget. */
class BudgetSpent extends RateLimited {
  constructor(policy: BudgetPolicy, window: 'minute' | 'day', retryAfterSeconds: number) {
    super(window, retryAfterSeconds);
    const limit = window === 'day' ? policy.perDay : policy.perMinute;
    this.message = `${policy.title}: at most ${limit} ${policy.what} a ${window} per organization; retry in ${retryAfterSeconds} s`;
  }
}

/** See the module comment. */
export class OrgBudget {
  /** Until when (epoch ms) each org was last seen spent, and which window. */
  private readonly spent = new Map<number, { readonly until: number; readonly window: 'minute' | 'day' }>();

  constructor(private readonly deps: { readonly store: OrgBudgetStore; readonly clock: Clock; readonly policy: BudgetPolicy }) {}

  /** Count one call of the org. @throws RateLimited (429 with `Retry-After`) when a window's budget is spent */
  async take(orgId: number): Promise<void> {
    const { policy, store } = this.deps;
    const now = this.deps.clock.now();
    const known = this.spent.get(orgId);
    if (known !== undefined && now < known.until) throw this.refusal(known.window, known.until, now);
    const minute = Math.floor(now / MINUTE) * MINUTE;
    const day = Math.floor(now / DAY) * DAY;
    const { perDay } = policy;
    const daily = perDay !== undefined;
    // Minute only: an item per minute. With a day: an item per day, the minute's count beside the day's.
    const counts: BudgetCount[] = daily
      ? [
          { field: 'count', limit: perDay },
          { field: `m${(minute - day) / MINUTE}`, limit: policy.perMinute },
        ]
      : [{ field: 'count', limit: policy.perMinute }];
    const windowEnd = daily ? day + DAY : minute + MINUTE;
    const spent = await store.takeBudget(
      `${policy.name}#${orgId}#${daily ? day : minute}`,
      counts,
      Math.ceil(windowEnd / 1000) + KEPT_PAST_WINDOW_SECONDS,
    );
    if (spent === undefined) return;
    // The day's count spent: refused to the day's end; else (or unknown) to the minute's.
    const window = daily && spent.includes('count') ? 'day' : 'minute';
    const until = window === 'day' ? day + DAY : minute + MINUTE;
    if (this.spent.size >= MAX_ORGS) this.spent.clear();
    this.spent.set(orgId, { until, window });
    throw this.refusal(window, until, now);
  }

  private refusal(window: 'minute' | 'day', until: number, now: number): BudgetSpent {
    return new BudgetSpent(this.deps.policy, window, Math.max(1, Math.ceil((until - now) / 1000)));
  }
}
