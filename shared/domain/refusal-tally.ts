import type { RateLimitedKey } from './rate-limit.js';

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

/** Keys tallied at most; beyond it the memory starts afresh (their batches are lost: a bound, not a plan). */
const MAX_KEYS = 10_000;

/**
 * The 429s a container answers from memory (the key's window is known exhausted: `ExhaustedShards`),
 * counted in memory and handed out in batches: the first refusal of a batch starts it, and a
 * refusal at least {@link TALLY_FLUSH_MS} later (or on another day) hands it out for one write. So
 * a key refused thousands of times a second costs one write per container every ten seconds, on an
 * item of its own (`refused#<key>#<day>`), never a write per call nor a hot item. The key's next
 * counted call hands out what is pending too (its write runs beside the count: no round trip more).
 * What a container still holds when it is shut down is lost: at most ten seconds of one container's refusals.
 */
export class RefusalTally {
  private readonly byKey = new Map<number, Pending>();

  /** Count one refusal from memory; the batch to write now, if one is due. */
  note(key: RateLimitedKey & { readonly org_id: number }, nowMs: number): RefusalCount | undefined {
    const day = new Date(nowMs).toISOString().slice(0, 10);
    const pending = this.byKey.get(key.id);
    if (pending && pending.day === day) {
      pending.count++;
      return nowMs - pending.since >= TALLY_FLUSH_MS ? this.take(key) : undefined;
    }
    // A batch of an earlier day is handed out as it is, and this refusal starts the next.
    const earlier = pending ? this.take(key) : undefined;
    if (this.byKey.size >= MAX_KEYS) this.byKey.clear();
    this.byKey.set(key.id, { day, count: 1, since: nowMs });
    return earlier;
  }

  /** Hand out the key's pending batch, if any (its next counted call writes it). */
  take(key: { readonly id: number; readonly org_id: number }): RefusalCount | undefined {
    const pending = this.byKey.get(key.id);
    if (!pending) return undefined;
    this.byKey.delete(key.id);
    return { orgId: key.org_id, keyId: key.id, day: pending.day, count: pending.count };
  }

  /** Take back a batch whose write failed at `nowMs`: it goes out with the next one (of the same day). */
  restore(batch: RefusalCount, nowMs: number): void {
    const pending = this.byKey.get(batch.keyId);
    if (pending && pending.day === batch.day) pending.count += batch.count;
    else if (!pending) this.byKey.set(batch.keyId, { day: batch.day, count: batch.count, since: nowMs });
  }
}
