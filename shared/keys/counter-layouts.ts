/**
 * Counter layouts: how "never over" survives a change of a key's limits mid-window
 * (SECURITY.md, "Rate limits across a limit change").
 *
 * A key's counter is split into shards, each admitting its share of each limit (`rate-limit.ts`).
 * Shares are fixed fractions of the limits, so when the limits or the shard count change, the
 * counts already in the shards no longer match the new shares: new shards start empty and a shard
 * that held more than its new share leaves the rest of the key's budget open elsewhere (issue 25:
 * 20 a day, then 15 more after a change to 100,000 a minute).
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
import { Overloaded } from '../platform/errors.js';
import type { ApiKeyRecord } from './model.js';
import type { CounterLayoutStore } from './ports.js';
import {
  counterItemKey,
  counterShards,
  counterTtl,
  dayStartOf,
  minuteFieldOf,
  MAX_COUNTER_SHARDS,
  NOTHING_CARRIED,
  type CarriedCounts,
  type CounterLayout,
} from './rate-limit.js';

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
