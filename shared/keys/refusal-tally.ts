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
 * item of its own (the key's untargeted usage rollup item of the day: `shared/audit/audit-store.ts`),
 * never a write per call nor a hot item. The key's next counted call hands out what is pending too (its write runs beside the count: no round trip more).
 * Nothing else writes a batch: a pending one waits for the key's next counted call or next refusal,
 * however long that takes. What a container holds when it is shut down is lost: of each key, the
 * refusals since its last batch went out (those of under ten seconds, while the key was still being
 * refused; any number of days later), and a batch whose write failed and was not written again since.
 */
export class RefusalTally {
  /** Per key, its pending batches by day: today's, and any of an earlier day whose write failed. */
  private readonly byKey = new Map<number, Map<string, Pending>>();

  /** Count one refusal from memory; the batch to write now, if one is due. */
  note(key: RateLimitedKey & { readonly org_id: number }, nowMs: number): RefusalCount | undefined {
    const day = new Date(nowMs).toISOString().slice(0, 10);
    const batches = this.batchesOf(key.id);
    const pending = batches.get(day);
    if (pending) pending.count++;
    else batches.set(day, { day, count: 1, since: nowMs });
    // A batch of an earlier day is due at once (one a refusal: the next takes the next); today's once old enough.
    const due = [...batches.values()].find((b) => b.day !== day || nowMs - b.since >= TALLY_FLUSH_MS);
    return due && this.handOut(key, batches, due);
  }

  /** Hand out one of the key's pending batches, if any (its next counted call writes it). */
  take(key: { readonly id: number; readonly org_id: number }): RefusalCount | undefined {
    const batches = this.byKey.get(key.id);
    const oldest = batches?.values().next().value;
    return oldest && this.handOut(key, batches!, oldest);
  }

  /** Take back a batch whose write failed at `nowMs`: it goes out with the next one of its day, or on its own. */
  restore(batch: RefusalCount, nowMs: number): void {
    const batches = this.batchesOf(batch.keyId);
    const pending = batches.get(batch.day);
    if (pending) pending.count += batch.count;
    else batches.set(batch.day, { day: batch.day, count: batch.count, since: nowMs });
  }

  /** The key's pending batches, made empty when it has none. */
  private batchesOf(keyId: number): Map<string, Pending> {
    let batches = this.byKey.get(keyId);
    if (!batches) {
      if (this.byKey.size >= MAX_KEYS) this.byKey.clear();
      batches = new Map();
      this.byKey.set(keyId, batches);
    }
    return batches;
  }

  private handOut(key: { readonly id: number; readonly org_id: number }, batches: Map<string, Pending>, batch: Pending): RefusalCount {
    batches.delete(batch.day);
    if (batches.size === 0) this.byKey.delete(key.id);
    return { orgId: key.org_id, keyId: key.id, day: batch.day, count: batch.count };
  }
}
