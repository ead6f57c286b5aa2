/**
 * The 429s a container answers from memory: which counter shards it knows full (so a call of an
 * exhausted key is refused with no write at all), and the tally of those refusals, written to the
 * usage rollup in batches (so the usage report counts them at a write per key, container and ten
 * seconds, not per call).
 */
import type { CounterLayout, RateLimitedKey, RateWindow } from './rate-limit.js';

/**
 * Keys remembered (full shards) or tallied at most; beyond it the memory starts afresh: it is only
 * a shortcut, and the tally's pending batches are lost (a bound, not a plan).
 */
const MAX_KEYS = 10_000;

const MINUTE = 60_000;
const DAY = 86_400_000;

// --- The shards known full: the refusal itself

/** The layout a memo is about: its index and shard count. */
type Layout = Pick<CounterLayout, 'index' | 'shards'>;

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

// --- The tally of those refusals, written in batches

/** How long a container keeps a key's refusals from memory before adding them to the key's tally item. */
const TALLY_FLUSH_MS = 10_000;

/** Refusals from memory of one key on one UTC day, to be added to its tally item. */
export interface RefusalCount {
  readonly orgId: number;
  readonly keyId: number;
  /** The UTC day, `yyyy-mm-dd`. */
  readonly day: string;
  readonly count: number;
}

interface Pending {
  day: string;
  count: number;
  /** When the first refusal of this batch came. */
  since: number;
}

/**
 * The 429s a container answers from memory (the key's window is known exhausted: {@link ExhaustedShards}),
 * counted in memory and handed out in batches: the first refusal of a batch starts it, and a
 * refusal at least {@link TALLY_FLUSH_MS} later (or on another day) hands it out for one write. So
 * a key refused thousands of times a second costs one write per container every ten seconds, on an
 * item of its own (the key's untargeted usage rollup item of the day: `shared/audit/audit-store.ts`),
 * never a write per call nor a hot item. The key's next counted call hands out what is pending too (its write runs beside the count: no round trip more).
 * Nothing else writes a batch: a pending one waits for the key's next counted call or next refusal,
 * however long that takes. What a container holds when it is shut down is lost: of each key, the
 * refusals since its last batch went out (those of under ten seconds, while the key was still being
 * refused; any number of days later), and a batch whose write failed and was not written again since.
 */
export class RefusalTally {
  /** Per key, its pending batches by day: today's, and any of an earlier day whose write failed. */
  private readonly byKey = new Map<number, Map<string, Pending>>();

  /** Count one refusal from memory; the batch to write now, if one is due. */
  note(key: RateLimitedKey & { readonly org_id: number }, nowMs: number): RefusalCount | undefined {
    const day = new Date(nowMs).toISOString().slice(0, 10);
    const batches = this.batchesOf(key.id);
    const pending = batches.get(day);
    if (pending) pending.count++;
    else batches.set(day, { day, count: 1, since: nowMs });
    // A batch of an earlier day is due at once (one a refusal: the next takes the next); today's once old enough.
    const due = [...batches.values()].find((b) => b.day !== day || nowMs - b.since >= TALLY_FLUSH_MS);
    return due && this.handOut(key, batches, due);
  }

  /** Hand out one of the key's pending batches, if any (its next counted call writes it). */
  take(key: { readonly id: number; readonly org_id: number }): RefusalCount | undefined {
    const batches = this.byKey.get(key.id);
    const oldest = batches?.values().next().value;
    return oldest && this.handOut(key, batches!, oldest);
  }

  /** Take back a batch whose write failed at `nowMs`: it goes out with the next one of its day, or on its own. */
  restore(batch: RefusalCount, nowMs: number): void {
    const batches = this.batchesOf(batch.keyId);
    const pending = batches.get(batch.day);
    if (pending) pending.count += batch.count;
    else batches.set(batch.day, { day: batch.day, count: batch.count, since: nowMs });
  }

  /** The key's pending batches, made empty when it has none. */
  private batchesOf(keyId: number): Map<string, Pending> {
    let batches = this.byKey.get(keyId);
    if (!batches) {
      if (this.byKey.size >= MAX_KEYS) this.byKey.clear();
      batches = new Map();
      this.byKey.set(keyId, batches);
    }
    return batches;
  }

  private handOut(key: { readonly id: number; readonly org_id: number }, batches: Map<string, Pending>, batch: Pending): RefusalCount {
    batches.delete(batch.day);
    if (batches.size === 0) this.byKey.delete(key.id);
    return { orgId: key.org_id, keyId: key.id, day: batch.day, count: batch.count };
  }
}
