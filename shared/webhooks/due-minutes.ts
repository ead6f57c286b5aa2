/**
 * Which minutes of due items one sweep reads, and how far its watermark moves (pure; the sweep is
 * `due-sweep.ts`). The watermark is the oldest minute not yet swept whole: a sweep reads from there
 * (a backlog left by failed runs, at most {@link MAX_BACKLOG_MINUTES_PER_RUN} of it, oldest first)
 * and always the last {@link DUE_LOOKBACK_MINUTES} minutes, so an item written into a minute that
 * already passed (its stream record read late) is still found. The watermark moves only past
 * minutes swept whole, and never past the lookback: a run that fails leaves its minutes for the
 * next, however long the failures last, until the items' TTL ({@link DUE_KEEP_MINUTES}) takes them.
 */

export const MINUTE_MS = 60_000;

/** Minutes every sweep reads, the current one included: a due item written up to 4 minutes after its minute is found. */
export const DUE_LOOKBACK_MINUTES = 5;

/**
 * Minutes of backlog (older than the lookback) one sweep reads at most: an empty minute is 16 small
 * queries, so a 2-day backlog is caught up in about 48 runs, each well inside the function's timeout.
 */
export const MAX_BACKLOG_MINUTES_PER_RUN = 60;

/** How long a due item is kept after its minute (TTL): 2 days. A sweep never reads further back. */
export const DUE_KEEP_MINUTES = 2 * 24 * 60;

/** The start (epoch ms) of the minute of `ms`. */
function minuteStart(ms: number): number {
  return Math.floor(ms / MINUTE_MS) * MINUTE_MS;
}

/** What one sweep reads: the minutes (epoch ms of their start), oldest first, and the oldest minute of its lookback. */
export interface SweepPlan {
  readonly minutes: readonly number[];
  /** The first minute of the lookback, which the watermark never passes. */
  readonly lookbackFrom: number;
}

/**
 * The minutes a sweep at `nowMs` reads, given the stored watermark (undefined before the first
 * sweep: the lookback alone): the backlog from the watermark (not older than the items' TTL), at
 * most {@link MAX_BACKLOG_MINUTES_PER_RUN} of it, then the lookback up to the current minute.
 */
export function planSweep(watermark: number | undefined, nowMs: number): SweepPlan {
  const current = minuteStart(nowMs);
  const lookbackFrom = current - (DUE_LOOKBACK_MINUTES - 1) * MINUTE_MS;
  const oldest = current - DUE_KEEP_MINUTES * MINUTE_MS;
  const from = Math.max(oldest, Math.min(minuteStart(watermark ?? lookbackFrom), lookbackFrom));
  const minutes: number[] = [];
  for (let m = from; m < lookbackFrom && minutes.length < MAX_BACKLOG_MINUTES_PER_RUN; m += MINUTE_MS) minutes.push(m);
  for (let m = lookbackFrom; m <= current; m += MINUTE_MS) minutes.push(m);
  return { minutes, lookbackFrom };
}

/**
 * The watermark after a sweep that read `plan` and swept whole the minutes in `done`: past the
 * minutes swept whole in a row from the plan's first, never past the lookback's first minute.
 * @returns the new watermark; never less than the plan's first minute
 */
export function nextWatermark(plan: SweepPlan, done: ReadonlySet<number>): number {
  let through = plan.minutes[0] ?? plan.lookbackFrom;
  for (const minute of plan.minutes) {
    if (minute !== through || !done.has(minute)) break;
    through = minute + MINUTE_MS;
  }
  return Math.min(through, plan.lookbackFrom);
}

/** `items` in consecutive chunks of at most `size`. */
export function chunked<T>(items: readonly T[], size: number): T[][] {
  if (!(size >= 1)) throw new Error('a chunk holds at least one item');
  const chunks: T[][] = [];
  for (let start = 0; start < items.length; start += size) chunks.push(items.slice(start, start + size));
  return chunks;
}
