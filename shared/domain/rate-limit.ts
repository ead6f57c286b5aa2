import type { ApiKeyRecord, RateLimitState, WindowState } from './model.js';
import type { CounterWindow } from './ports.js';

const MINUTE = 60_000;
const DAY = 86_400_000;

/** A fixed window aligned to the UTC minute or day. */
export interface RateWindow extends CounterWindow {
  readonly name: 'minute' | 'day';
  readonly startMs: number;
  readonly endMs: number;
}

/** The key's two windows at `nowMs`: per UTC minute and per UTC day. */
export function rateWindows(
  key: Pick<ApiKeyRecord, 'id' | 'rate_limit_per_minute' | 'rate_limit_per_day'>,
  nowMs: number,
): [RateWindow, RateWindow] {
  return [window(key.id, 'minute', MINUTE, key.rate_limit_per_minute, nowMs), window(key.id, 'day', DAY, key.rate_limit_per_day, nowMs)];
}

function window(keyId: number, name: RateWindow['name'], length: number, limit: number, nowMs: number): RateWindow {
  const startMs = Math.floor(nowMs / length) * length;
  const endMs = startMs + length;
  return {
    name,
    limit,
    startMs,
    endMs,
    counterKey: `rate#${keyId}#${name}#${startMs}`,
    // Keep the item a little past its window so a late undo still finds it.
    ttl: Math.ceil(endMs / 1000) + 3600,
  };
}

/** Seconds until the window resets, at least 1. */
export function secondsToReset(w: RateWindow, nowMs: number): number {
  return Math.max(1, Math.ceil((w.endMs - nowMs) / 1000));
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
