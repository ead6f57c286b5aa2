/**
 * A key's rate limits: its two fixed windows, the counter items that count them (shards, each with
 * its share of each limit) and the day's counter layouts, which keep the count across a change of
 * the key's limits mid-day. `key-calls.ts` counts with them; `counter-store.ts` writes the items.
 */
import type { RateLimitState, WindowState } from '../platform/call.js';
import { Overloaded } from '../platform/errors.js';
import type { ApiKeyRecord } from './model.js';
import type { CounterLayoutStore } from './ports.js';

const MINUTE = 60_000;
const DAY = 86_400_000;

// --- The windows

/** The key properties the rate limits read. */
export type RateLimitedKey = Pick<ApiKeyRecord, 'id' | 'rate_limit_per_minute' | 'rate_limit_per_day'>;

/** A fixed window aligned to the UTC minute or day (what the client is told about). */
export interface RateWindow {
  readonly name: 'minute' | 'day';
  readonly limit: number;
  readonly startMs: number;
  readonly endMs: number;
}

/** The key's two windows at `nowMs`: per UTC minute and per UTC day. */
export function rateWindows(key: RateLimitedKey, nowMs: number): [RateWindow, RateWindow] {
  return [window('minute', MINUTE, key.rate_limit_per_minute, nowMs), window('day', DAY, key.rate_limit_per_day, nowMs)];
}

function window(name: RateWindow['name'], length: number, limit: number, nowMs: number): RateWindow {
  const startMs = Math.floor(nowMs / length) * length;
  return { name, limit, startMs, endMs: startMs + length };
}

/** Seconds until the window resets, at least 1. */
export function secondsToReset(rateWindow: RateWindow, nowMs: number): number {
  return Math.max(1, Math.ceil((rateWindow.endMs - nowMs) / 1000));
}

// --- The counter items: shards and their shares

/**
 * Minute attributes of earlier minutes that a count removes from its item as it goes, so that a busy
 * counter item stays a few dozen bytes (one write unit). A minute followed by this many quiet ones
 * stays until the item expires: at most one such attribute per quiet spell, a few bytes each.
 */
const STALE_MINUTES_REMOVED = 10;

/**
 * Share of the per-second write capacity of one partition that one counter shard is planned for:
 * half, because a full shard's refused conditional writes are billed too, and a client may offer
 * more than its limit.
 */
const SHARD_LOAD = 0.5;
/** Most shards one key's counter is split into (a key's limits bound it long before this). */
export const MAX_COUNTER_SHARDS = 64;

/**
 * What a key's windows already hold under the earlier counter layouts of the day (a limit changed
 * mid-day, {@link CounterLayouts}): the day's count, and the count of each recent minute by its
 * attribute (`m` and the minute of the UTC day).
 */
export interface CarriedCounts {
  readonly day: number;
  readonly minutes: Readonly<Record<string, number>>;
}

/** Nothing carried: the day's first layout. */
const NOTHING_CARRIED: CarriedCounts = { day: 0, minutes: {} };

/**
 * The counter items a key's calls of one UTC day count in: layout 0 is the day's first; each limit
 * change during the day moves the key to the next one, which starts with what the earlier ones
 * counted (`carried`) and shares only the rest of each limit among its `shards`
 * ({@link CounterLayouts}, SECURITY.md "Rate limits across a limit change").
 */
export interface CounterLayout {
  readonly index: number;
  /** The key's `limits_version` the layout was made for (0: never changed). */
  readonly version: number;
  readonly shards: number;
  readonly carried: CarriedCounts;
}

/**
 * The counter item of one shard of a key's windows. One item per key, UTC day and shard holds both
 * windows: the day's count and the current minute's, so that one conditional write counts a call in
 * both or in neither (a call refused by one window is never counted in the other: nothing to undo).
 */
export interface CounterSlot {
  readonly counterKey: string;
  readonly shard: number;
  /** Attribute of the current minute's count (`m` and the minute of the UTC day). */
  readonly minuteField: string;
  /** Attributes of the minutes just before, removed by the same write. */
  readonly staleMinuteFields: readonly string[];
  /** This shard's share of each limit (the shares add up to the key's limits exactly). */
  readonly minuteLimit: number;
  readonly dayLimit: number;
  /** Epoch seconds after which the item may go (an hour after the day ends). */
  readonly ttl: number;
}

/**
 * What counting a call in a shard did: the shard's counts after it, the window that refused it, or
 * `sealed`: the item's layout was closed by a limit change ({@link CounterLayouts}), nothing counted.
 */
export type SlotCount =
  { readonly minute: number; readonly day: number } | { readonly refusedBy: RateWindow['name'] } | { readonly sealed: true };

/**
 * How many counter shards a key's windows are split into. One counter item lives in one partition,
 * which takes `partitionWriteUnits` writes a second (DynamoDB: 1,000); a key may make
 * `rate_limit_per_minute / 60` counted calls a second at most, each one write. The shards are as
 * many as that peak needs at {@link SHARD_LOAD} of a partition each, and never more than either
 * limit (every shard must admit at least one call of each window).
 */
export function counterShards(key: RateLimitedKey, partitionWriteUnits: number): number {
  const peakPerSecond = key.rate_limit_per_minute / 60;
  const needed = Math.ceil(peakPerSecond / (partitionWriteUnits * SHARD_LOAD));
  return Math.max(1, Math.min(needed, MAX_COUNTER_SHARDS, key.rate_limit_per_minute, key.rate_limit_per_day));
}

/** Shard `shard`'s share of `limit` among `shards`: the shares differ by at most one and add up to `limit`. */
export function shareOf(limit: number, shard: number, shards: number): number {
  return Math.floor(limit / shards) + (shard < limit % shards ? 1 : 0);
}

/** Start of the UTC day of `nowMs`. */
export function dayStartOf(nowMs: number): number {
  return Math.floor(nowMs / DAY) * DAY;
}

/** The attribute of the minute of `nowMs` in a counter item (`m` and the minute of the UTC day). */
function minuteFieldOf(nowMs: number): string {
  return `m${Math.floor((nowMs - dayStartOf(nowMs)) / MINUTE)}`;
}

/** Epoch seconds after which a key's counter items of the day of `nowMs` may go (an hour after the day ends). */
function counterTtl(nowMs: number): number {
  return Math.ceil((dayStartOf(nowMs) + DAY) / 1000) + 3600;
}

/** The counter item of one shard of one layout of a key's day (layout 0 keeps the names items had before layouts). */
export function counterItemKey(keyId: number, dayStart: number, layoutIndex: number, shard: number): string {
  return layoutIndex === 0 ? `rate#${keyId}#${dayStart}#${shard}` : `rate#${keyId}#${dayStart}#L${layoutIndex}#${shard}`;
}

/**
 * The counter item of shard `shard` (of `shards`) of the key's windows at `nowMs`, in `layout`
 * (the day's first by default): its shares are of what the earlier layouts left of each limit.
 */
export function counterSlot(
  key: RateLimitedKey,
  nowMs: number,
  shard: number,
  shards: number,
  layout: Pick<CounterLayout, 'index' | 'carried'> = { index: 0, carried: NOTHING_CARRIED },
): CounterSlot {
  const dayStart = dayStartOf(nowMs);
  const minuteOfDay = Math.floor((nowMs - dayStart) / MINUTE);
  const stale: string[] = [];
  for (let m = minuteOfDay - 1; m >= Math.max(0, minuteOfDay - STALE_MINUTES_REMOVED); m--) stale.push(`m${m}`);
  const minuteField = `m${minuteOfDay}`;
  const left = remaining(key, layout.carried, minuteField);
  return {
    counterKey: counterItemKey(key.id, dayStart, layout.index, shard),
    shard,
    minuteField,
    staleMinuteFields: stale,
    minuteLimit: shareOf(left.minute, shard, shards),
    dayLimit: shareOf(left.day, shard, shards),
    ttl: counterTtl(nowMs),
  };
}

/** What the earlier layouts of the day left of each limit (never below 0). */
export function remaining(key: RateLimitedKey, carried: CarriedCounts, minuteField: string): { minute: number; day: number } {
  return {
    minute: Math.max(0, key.rate_limit_per_minute - (carried.minutes[minuteField] ?? 0)),
    day: Math.max(0, key.rate_limit_per_day - carried.day),
  };
}

/**
 * A key's total count in a window, estimated from the one shard a call counted in: shards fill at
 * about the same pace (calls pick them at random), so the shard's fill ratio stands for the key's.
 * Exact with one shard.
 */
export function estimatedTotal(count: number, share: number, limit: number): number {
  return share === limit ? count : Math.min(limit, Math.round((count / share) * limit));
}

// --- What a call tells the client

/**
 * What the client is told about its windows after a call: `counts[i]` is the count after this call,
 * or `'exhausted'` when window i refused it.
 */
export function rateState(
  windows: readonly RateWindow[],
  counts: readonly (number | 'exhausted' | undefined)[],
  nowMs: number,
): RateLimitState {
  const states: WindowState[] = windows.map((w, i) => {
    const count = counts[i];
    const remaining = count === 'exhausted' ? 0 : Math.max(0, w.limit - (count ?? 0));
    return { name: w.name, limit: w.limit, windowSeconds: (w.endMs - w.startMs) / 1000, remaining, resetSeconds: secondsToReset(w, nowMs) };
  });
  return { windows: states };
}

// --- The day's layouts: the count across a change of limits

/**
 * How "never over" survives a change of a key's limits mid-window
 * (SECURITY.md, "Rate limits across a limit change").
 *
 * A key's counter is split into shards, each admitting its share of each limit (above). Shares
 * are fixed fractions of the limits, so when the limits or the shard count change, the
 * counts already in the shards no longer match the new shares: new shards start empty and a shard
 * that held more than its new share leaves the rest of the key's budget open elsewhere (20 a day,
 * then 15 more after a change to 100,000 a minute).
 *
 * So a change of limits starts a new **layout** for the rest of the day: new counter items whose
 * shares are of what the earlier layouts left of each limit. The first call that meets the change
 * (the key's `limits_version` is newer than the day's layout) hands over:
 *
 * 1. it **seals** every item of the day's current layout (one parallel stage): a sealed item counts
 *    nothing more, so what the old layout holds is final: a call still counting with the key
 *    as it was before the change is refused by the seal and counts again under the new layout;
 * 2. it stores the new layout (index + 1, the key's version and shard count, and the counts carried:
 *    what the sealed items and the layouts before them held, for the day and for each recent
 *    minute) with a conditional put: of two calls handing over at once one stores it and the
 *    other reads it.
 *
 * Only keys whose limits changed since shortly before the day began read the stored layout (once
 * per container and layout: it is remembered); every other key's calls count in the day's first
 * layout at no extra cost. The day's first layout's shard count is not recorded anywhere, so its
 * hand-over seals all {@link MAX_COUNTER_SHARDS} shard items (absent ones are created sealed).
 */

/** The key properties the layouts read. */
export type LayoutKey = Pick<ApiKeyRecord, 'id' | 'rate_limit_per_minute' | 'rate_limit_per_day' | 'limits_version' | 'limits_changed_at'>;

/**
 * How long before a day began a limit change still concerns it: a call counts within its 10 s
 * timeout of reading its key, so a call that read the key before the change may count in the
 * next day; a minute covers that and any clock difference between containers.
 */
const SETTLE_MS = 60_000;
/** Minutes before the hand-over whose carried counts are kept (a call's minute is never older). */
const MINUTES_CARRIED = 2;
/** Hand-over attempts before the call is answered 503 (each lost race reads the winner's layout). */
const MAX_HANDOVER_TRIES = 4;
/** Keys remembered at most; beyond it the memory starts afresh (it is only a shortcut). */
const MAX_KEYS = 10_000;

/**
 * The call holds the key as it was before a limit change that a newer layout already serves: read
 * the key again and count under its limits.
 */
export class StaleKey extends Error {
  override readonly name = 'StaleKey';
}

/** The key's `limits_version` (absent: 0, never changed). */
const limitsVersion = (key: LayoutKey): number => key.limits_version ?? 0;

/** The day's first layout of a key whose limits did not change since shortly before the day began. */
function firstLayout(key: LayoutKey, partitionWriteUnits: number): CounterLayout {
  return { index: 0, version: limitsVersion(key), shards: counterShards(key, partitionWriteUnits), carried: NOTHING_CARRIED };
}

/** The layouts of keys' days, as this container knows them, and the hand-over to a new one. */
export class CounterLayouts {
  private readonly known = new Map<number, { readonly dayStart: number; readonly layout: CounterLayout }>();
  /** Hand-overs and reads under way, so that one container's concurrent calls share one. */
  private readonly pending = new Map<string, Promise<CounterLayout>>();

  constructor(
    private readonly store: CounterLayoutStore,
    private readonly partitionWriteUnits: number,
  ) {}

  /**
   * The layout the key's calls count in at `nowMs`, when it is known without a read: the day's
   * first for a key whose limits did not change since shortly before the day began, else the one
   * this container last read or made for the key's version.
   */
  peek(key: LayoutKey, nowMs: number): CounterLayout | undefined {
    const dayStart = dayStartOf(nowMs);
    const changedAt = key.limits_changed_at ? Date.parse(key.limits_changed_at) : undefined;
    if (changedAt === undefined || changedAt < dayStart - SETTLE_MS) return firstLayout(key, this.partitionWriteUnits);
    const memo = this.known.get(key.id);
    return memo && memo.dayStart === dayStart && memo.layout.version === limitsVersion(key) ? memo.layout : undefined;
  }

  /**
   * The layout the key's calls count in at `nowMs`: as {@link peek}, else the stored one, handed
   * over to a new one when the key's limits are newer. `sealed` is the layout a count was just
   * refused by as sealed: it is no longer the one to count in.
   * @throws StaleKey (a newer version of the key's limits is in force), Overloaded
   */
  async current(key: LayoutKey, nowMs: number, sealed?: number): Promise<CounterLayout> {
    const known = sealed === undefined ? this.peek(key, nowMs) : undefined;
    if (known) return known;
    const dayStart = dayStartOf(nowMs);
    const id = `${key.id}/${dayStart}/${limitsVersion(key)}/${sealed ?? ''}`;
    let pending = this.pending.get(id);
    if (!pending) {
      pending = this.resolve(key, nowMs, sealed).finally(() => this.pending.delete(id));
      this.pending.set(id, pending);
    }
    return pending;
  }

  private async resolve(key: LayoutKey, nowMs: number, sealed: number | undefined): Promise<CounterLayout> {
    const dayStart = dayStartOf(nowMs);
    const version = limitsVersion(key);
    for (let attempt = 0; attempt < MAX_HANDOVER_TRIES; attempt++) {
      const stored = await this.store.layoutOf(key.id, dayStart);
      if (stored && stored.version > version) throw new StaleKey();
      if (stored && stored.version === version) {
        // The layout of these limits refused a count as sealed: a newer version is handing over.
        if (stored.index === sealed) throw new StaleKey();
        return this.remember(key, dayStart, stored);
      }
      // The stored layout (or the day's first) was made for older limits: hand over.
      const from = stored ?? { index: 0, shards: MAX_COUNTER_SHARDS, carried: NOTHING_CARRIED };
      const keys = Array.from({ length: from.shards }, (_, shard) => counterItemKey(key.id, dayStart, from.index, shard));
      const held = await this.store.seal(keys, counterTtl(nowMs));
      const next: CounterLayout = {
        index: from.index + 1,
        version,
        shards: counterShards(key, this.partitionWriteUnits),
        carried: carry(from.carried, held, nowMs),
      };
      if (await this.store.replaceLayout(key.id, dayStart, next, stored?.index ?? 0, counterTtl(nowMs))) {
        return this.remember(key, dayStart, next);
      }
      // Another call handed over first: read what it stored.
    }
    throw new Overloaded();
  }

  private remember(key: LayoutKey, dayStart: number, layout: CounterLayout): CounterLayout {
    if (this.known.size >= MAX_KEYS) this.known.clear();
    this.known.set(key.id, { dayStart, layout });
    return layout;
  }
}

/** The counts carried into a new layout: the old layout's, plus what its sealed items held. */
function carry(before: CarriedCounts, held: CarriedCounts, nowMs: number): CarriedCounts {
  const oldest = Number(minuteFieldOf(nowMs).slice(1)) - MINUTES_CARRIED;
  const minutes: Record<string, number> = {};
  for (const source of [before.minutes, held.minutes]) {
    for (const [field, count] of Object.entries(source)) {
      if (Number(field.slice(1)) >= oldest) minutes[field] = (minutes[field] ?? 0) + count;
    }
  }
  return { day: before.day + held.day, minutes };
}
