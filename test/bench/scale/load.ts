/**
 * Open-loop load for the scale scenarios: requests are started at a fixed rate (real time) whatever
 * the answers take, as independent clients would send them, with a cap on requests in flight so a
 * stalled service cannot exhaust the machine (a request the cap delays is still sent, late; the
 * achieved rate is reported).
 */
import { performance } from 'node:perf_hooks';

/** Counts every scenario reports. */
export interface Tally {
  offered: number;
  /** Answered with success. */
  admitted: number;
  /** Answered 429 (the key's rate limit). */
  refused: number;
  /** Answered 5xx. */
  errors5xx: number;
  /** Any other answer (4xx but 429): a scenario's own mistake, reported. */
  other: number;
}

/** An empty tally. */
export const tally = (): Tally => ({ offered: 0, admitted: 0, refused: 0, errors5xx: 0, other: 0 });

/** Count one answer's status. */
export function count(t: Tally, status: number): void {
  if (status >= 200 && status < 300) t.admitted++;
  else if (status === 429) t.refused++;
  else if (status >= 500) t.errors5xx++;
  else t.other++;
}

/**
 * Start `send(i)` at `perSecond` for `seconds` (real time), at most `inFlight` at once.
 * @returns the achieved rate (requests started per real second)
 */
export async function offer(perSecond: number, seconds: number, send: (i: number) => Promise<void>, inFlight = 256): Promise<number> {
  const started = performance.now();
  const pending = new Set<Promise<void>>();
  let sent = 0;
  const total = Math.round(perSecond * seconds);
  while (sent < total) {
    const due = Math.min(total, Math.floor(((performance.now() - started) / 1000) * perSecond) + 1);
    while (sent < due && pending.size < inFlight) {
      const p: Promise<void> = send(sent++).finally(() => pending.delete(p));
      pending.add(p);
    }
    await new Promise((resolve) => setTimeout(resolve, 2));
  }
  const elapsed = (performance.now() - started) / 1000;
  await Promise.all(pending);
  return sent / Math.max(elapsed, seconds);
}
