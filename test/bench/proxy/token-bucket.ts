/**
 * One partition's throughput allowance, as a token bucket: it refills at `ratePerSecond` capacity
 * units per second up to `capacity`, a request is admitted while the bucket holds what it is
 * estimated to cost, and its actual cost is taken afterwards (the level may go below zero: the debt
 * delays the next admissions, as DynamoDB charges a call that cost more than it was estimated at).
 */
export class TokenBucket {
  private level: number;
  private at: number;

  /**
   * @param ratePerSecond units added per second (of the `now` passed to the methods, in ms)
   * @param capacity the most the bucket holds (the burst allowance), in units
   * @param now the current time in ms; the bucket starts full
   */
  constructor(
    readonly ratePerSecond: number,
    readonly capacity: number,
    now: number,
  ) {
    this.level = capacity;
    this.at = now;
  }

  /** Units available at `now`. */
  available(now: number): number {
    this.refill(now);
    return this.level;
  }

  /** Whether a request estimated at `units` may run now (a request above the capacity needs a full bucket). */
  admits(units: number, now: number): boolean {
    this.refill(now);
    return this.level >= Math.min(units, this.capacity);
  }

  /** Charge what a request actually cost. */
  take(units: number, now: number): void {
    this.refill(now);
    this.level -= units;
  }

  private refill(now: number): void {
    if (now > this.at) this.level = Math.min(this.capacity, this.level + ((now - this.at) / 1000) * this.ratePerSecond);
    this.at = Math.max(this.at, now);
  }
}
