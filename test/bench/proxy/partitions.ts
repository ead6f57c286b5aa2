/**
 * DynamoDB's per-partition throughput, scaled: one read and one write {@link TokenBucket} per
 * partition key value of every table and index, each holding 1,000 WCU/s and 3,000 RCU/s divided by
 * the scale factor F, and running `accel` (A) times faster than real time when the service runs on
 * an accelerated clock (limits are per second of the service's clock).
 *
 * Burst: DynamoDB documents these as hard per-partition ceilings. Its "burst capacity" (up to 300
 * seconds of unused capacity) is a table-level allowance of provisioned mode and never lifts a
 * partition above its ceiling, and adaptive capacity / split for heat takes minutes to act and
 * cannot split one partition key value. So the model is conservative: a partition's bucket holds
 * one second of its ceiling ({@link BURST_SECONDS}), no more.
 */
import { TokenBucket } from './token-bucket.js';
import type { Charge } from './wire-units.js';

/** DynamoDB's documented ceilings per partition key value (per second). */
export const PARTITION_WRITE_UNITS = 1000;
const PARTITION_READ_UNITS = 3000;
/** Seconds (of the service's clock) of its ceiling a partition may use at once. */
const BURST_SECONDS = 1;

/** How the partitions are scaled. */
export interface PartitionModel {
  /** Every limit is divided by this (F). */
  readonly scale: number;
  /** The service's clock runs this many times faster than real time (A). */
  readonly accel: number;
}

/** Every partition's buckets, created full on first use. */
export class Partitions {
  private readonly buckets = new Map<string, TokenBucket>();

  constructor(
    private readonly model: PartitionModel,
    private readonly started: number,
  ) {}

  /** The first charge the buckets cannot admit at `now` (ms, real), or undefined: the call may run. */
  refusal(estimate: readonly Charge[], now: number): Charge | undefined {
    return estimate.find((c) => !this.bucket(c).admits(c.units, now));
  }

  /** Take what a call cost. */
  charge(actual: readonly Charge[], now: number): void {
    for (const c of actual) this.bucket(c).take(c.units, now);
  }

  private bucket(c: Charge): TokenBucket {
    const id = `${c.kind} ${c.resource} ${c.partition}`;
    let b = this.buckets.get(id);
    if (!b) {
      const perServiceSecond = (c.kind === 'read' ? PARTITION_READ_UNITS : PARTITION_WRITE_UNITS) / this.model.scale;
      b = new TokenBucket(perServiceSecond * this.model.accel, perServiceSecond * BURST_SECONDS, this.started);
      this.buckets.set(id, b);
    }
    return b;
  }
}
