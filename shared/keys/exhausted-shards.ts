import type { CounterLayout, RateLimitedKey, RateWindow } from './rate-limit.js';

/** The layout a memo is about: its index and shard count. */
type Layout = Pick<CounterLayout, 'index' | 'shards'>;

/** Keys remembered at most; beyond it the memory starts afresh (it is only a shortcut). */
const MAX_KEYS = 10_000;

const MINUTE = 60_000;
const DAY = 86_400_000;

/** What one container knows about one key's counter shards in the current windows. */
interface Memo {
  /** The limits and counter layout the memo was made under: any change starts it afresh. */
  readonly plan: string;
  readonly dayStart: number;
  minuteStart: number;
  readonly dayFull: Set<number>;
  minuteFull: Set<number>;
}

/**
 * The counter shards this container has seen refuse a key, per window. A call counts in a shard not
 * known to be full; when every shard is known full, the call is refused from memory with no write
 * at all (no count, no audit record, no use stamp): a client hammering an exhausted key costs one
 * read per call. Only refusals are remembered, so a memo can make a call try another shard or be
 * refused, never be admitted past a limit.
 */
export class ExhaustedShards {
  private readonly byKey = new Map<number, Memo>();

  /** The shards (0 .. shards-1) of the key's layout not known to be full at `nowMs`. */
  open(key: RateLimitedKey, nowMs: number, layout: Layout): number[] {
    const memo = this.current(key, nowMs, layout);
    const all = Array.from({ length: layout.shards }, (_, shard) => shard);
    return memo ? all.filter((s) => !memo.dayFull.has(s) && !memo.minuteFull.has(s)) : all;
  }

  /**
   * The window to name when no shard is open: the day, when every shard's day share is used up (it
   * resets later), else the minute (some shard takes calls again when it resets).
   */
  refusingWindow(key: RateLimitedKey, nowMs: number, layout: Layout): RateWindow['name'] {
    const memo = this.current(key, nowMs, layout);
    return memo && memo.dayFull.size === layout.shards ? 'day' : 'minute';
  }

  /** Remember that `shard` refused a call of the key because `window` was full. */
  remember(key: RateLimitedKey, nowMs: number, layout: Layout, shard: number, window: RateWindow['name']): void {
    let memo = this.current(key, nowMs, layout);
    if (!memo) {
      if (this.byKey.size >= MAX_KEYS) this.byKey.clear();
      memo = {
        plan: planOf(key, layout),
        dayStart: Math.floor(nowMs / DAY) * DAY,
        minuteStart: Math.floor(nowMs / MINUTE) * MINUTE,
        dayFull: new Set(),
        minuteFull: new Set(),
      };
      this.byKey.set(key.id, memo);
    }
    (window === 'day' ? memo.dayFull : memo.minuteFull).add(shard);
  }

  /** The key's memo if it still describes the windows at `nowMs` (the minute part renewed as time passes). */
  private current(key: RateLimitedKey, nowMs: number, layout: Layout): Memo | undefined {
    const memo = this.byKey.get(key.id);
    if (!memo) return undefined;
    if (memo.plan !== planOf(key, layout) || memo.dayStart !== Math.floor(nowMs / DAY) * DAY) {
      this.byKey.delete(key.id);
      return undefined;
    }
    const minuteStart = Math.floor(nowMs / MINUTE) * MINUTE;
    if (memo.minuteStart !== minuteStart) {
      memo.minuteStart = minuteStart;
      memo.minuteFull = new Set();
    }
    return memo;
  }
}

function planOf(key: RateLimitedKey, layout: Layout): string {
  return `${key.rate_limit_per_minute}/${key.rate_limit_per_day}/${layout.shards}/${layout.index}`;
}
