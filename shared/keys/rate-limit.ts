import type { RateLimitState, WindowState } from '../platform/call.js';
import type { ApiKeyRecord } from './model.js';

const MINUTE = 60_000;
const DAY = 86_400_000;

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
 * mid-day, `counter-layouts.ts`): the day's count, and the count of each recent minute by its
 * attribute (`m` and the minute of the UTC day).
 */
export interface CarriedCounts {
  readonly day: number;
  readonly minutes: Readonly<Record<string, number>>;
}

/** Nothing carried: the day's first layout. */
export const NOTHING_CARRIED: CarriedCounts = { day: 0, minutes: {} };

/**
 * The counter items a key's calls of one UTC day count in: layout 0 is the day's first; each limit
 * change during the day moves the key to the next one, which starts with what the earlier ones
 * counted (`carried`) and shares only the rest of each limit among its `shards`
 * (`counter-layouts.ts`, SECURITY.md "Rate limits across a limit change").
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
 * `sealed`: the item's layout was closed by a limit change (`counter-layouts.ts`), nothing counted.
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
export function minuteFieldOf(nowMs: number): string {
  return `m${Math.floor((nowMs - dayStartOf(nowMs)) / MINUTE)}`;
}

/** Epoch seconds after which a key's counter items of the day of `nowMs` may go (an hour after the day ends). */
export function counterTtl(nowMs: number): number {
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
