/** The time source of the domain; tests inject a fixed or moving clock. */
export interface Clock {
  /** Milliseconds since the epoch. */
  now(): number;
}

/** Wall-clock time. */
export const systemClock: Clock = { now: () => Date.now() };

/** ISO 8601 UTC with milliseconds, the one date-time format of the interface. */
export function isoTime(ms: number): string {
  return new Date(ms).toISOString();
}
