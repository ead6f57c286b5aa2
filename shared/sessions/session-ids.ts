import type { IdPermutation } from '../platform/id-permutation.js';
import { ID_BITS } from '../platform/id-permutation.js';
import type { CounterStore } from '../keys/ports.js';

/** Where consumptions get their session ids. */
export interface SessionIdSource {
  /** A new id: positive, below 2^53, never handed out before. */
  nextId(): Promise<number>;
  /** Give back an id that was certainly never stored (its conditional write was refused). */
  release(id: number): void;
}

export interface SessionIdOptions {
  /** Name of the sequence; its shards are the counter items `seq#<sequence>#<shard>`. */
  readonly sequence: string;
  /** Sequence items blocks are drawn from (a container picks one at random for each block). */
  readonly shards: number;
  /** Ids per block: one counter write per this many consumptions, per container. */
  readonly blockSize: number;
  /** Picks a shard (uniform in [0, 1)); `Math.random` by default. */
  readonly random?: () => number;
}

/** A block of counter values [next, end) being handed out. */
interface Block {
  next: number;
  readonly end: number;
}

/**
 * Session ids: hi/lo blocks of counter values drawn from many sequence items, passed through a
 * keyed permutation.
 *
 * - **Unique**: block `b` of shard `s` covers the counter values `((b-1)·shards + s)·blockSize` and
 *   the `blockSize - 1` after it; every block is reserved by one atomic `ADD` on its shard's item, so
 *   no two containers ever hold the same values, and the permutation is a bijection.
 * - **No hot item**: a container reserves a block from a random shard, so containers starting cold
 *   together (a burst) spread their reservations over `shards` items.
 * - **No wait on the warm path**: the next block is reserved in the background once half of the
 *   current one is used, so a consumption waits for a reservation only in a cold container.
 * - **Unpredictable**: see {@link IdPermutation}; the permuted ids reveal neither neighbours nor the
 *   platform's volume.
 */
export class SessionIdAllocator implements SessionIdSource {
  private current: Block | undefined;
  private ahead: Promise<Block | undefined> | undefined;
  private reserving: Promise<Block> | undefined;
  /** Ids handed out but never stored (see {@link release}), handed out again first. */
  private readonly returned: number[] = [];

  constructor(
    private readonly counters: CounterStore,
    private readonly permutation: IdPermutation,
    private readonly options: SessionIdOptions,
  ) {}

  async nextId(): Promise<number> {
    const spare = this.returned.pop();
    if (spare !== undefined) return spare;
    while (!this.current || this.current.next >= this.current.end) {
      const prefetched = this.ahead && (await this.ahead);
      this.ahead = undefined;
      // Concurrent callers share one reservation instead of each burning a block.
      this.current = prefetched ?? (await (this.reserving ??= this.reserve().finally(() => (this.reserving = undefined))));
    }
    const value = this.current.next++;
    if (!this.ahead && this.current.end - this.current.next < this.options.blockSize / 2) {
      // A failed prefetch is no failure: the next block is then reserved when it is needed.
      this.ahead = this.reserve().catch(() => undefined);
    }
    return this.permutation.apply(value) + 1;
  }

  /** At most a block's worth is kept; beyond that an id is simply never used. */
  release(id: number): void {
    if (this.returned.length < this.options.blockSize) this.returned.push(id);
  }

  /** Reserve the next block of a random shard. */
  private async reserve(): Promise<Block> {
    const { shards, blockSize, sequence } = this.options;
    const shard = Math.floor((this.options.random ?? Math.random)() * shards);
    const block = await this.counters.reserve(`${sequence}#${shard}`, 1);
    const start = ((block - 1) * shards + shard) * blockSize;
    if (!Number.isSafeInteger(start) || start + blockSize > 2 ** ID_BITS) throw new Error(`sequence ${sequence}#${shard} overflowed`);
    return { next: start, end: start + blockSize };
  }
}
