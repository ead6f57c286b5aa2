/**
 * THE id allocator (key ids, session ids): hi/lo blocks of counter values reserved with one atomic
 * counter update each and handed out from memory, so that taking an id is usually free. Ids are
 * positive, unique across containers (every block is reserved atomically) and stay below 2^53;
 * gaps are expected.
 *
 * Two layouts of the counter items, chosen by {@link IdAllocatorOptions.shards}:
 * - one item `<sequence>` counting ids (key ids): a block is `blockSize` values up to the count;
 * - `shards` items `<sequence>#<shard>` counting blocks (session ids): block `b` of shard `s` covers
 *   the values from `((b-1)·shards + s)·blockSize`, so that containers starting cold together (a
 *   burst) spread their reservations over `shards` items and no item is hot.
 */

/** The counter writes an allocator makes (the counters table's sequence items). */
export interface SequenceStore {
  /** Reserve `size` consecutive values of a sequence item; returns the last one. */
  reserve(sequence: string, size: number): Promise<number>;
}

/** Where a call gets new ids. */
export interface IdSource {
  /** A new id: positive, below 2^53, never handed out before. */
  nextId(): Promise<number>;
  /** Give back an id that was certainly never stored (its conditional write was refused). */
  release(id: number): void;
}

/** How an allocator draws its ids. */
export interface IdAllocatorOptions {
  /** Name of the sequence (its counter item, or the prefix of its shards' items). */
  readonly sequence: string;
  /** Ids per block: one counter write per this many ids, per container. */
  readonly blockSize: number;
  /** Sequence items blocks are drawn from, at random for each block; absent: the one item `<sequence>`. */
  readonly shards?: number;
  /** Reserve the next block in the background once half of the current one is used (no wait on the warm path). */
  readonly prefetch?: boolean;
  /**
   * A keyed bijection of [0, 2^52) applied to each value, so that ids reveal neither their
   * neighbours nor the volume (session ids, SECURITY.md); the id is then the permuted value + 1.
   */
  readonly permutation?: { apply(value: number): number };
  /** Picks a shard (uniform in [0, 1)); `Math.random` by default. */
  readonly random?: () => number;
}

/** A block of counter values [next, end) being handed out. */
interface Block {
  next: number;
  readonly end: number;
}

/** The domain a permutation maps onto itself: values stay below 2^52 (so ids stay safe in JSON). */
const PERMUTED_LIMIT = 2 ** 52;

/** An allocator of one sequence's ids (module comment). */
export class IdAllocator implements IdSource {
  private current: Block | undefined;
  private ahead: Promise<Block | undefined> | undefined;
  private reserving: Promise<Block> | undefined;
  /** Ids handed out but never stored (see {@link release}), handed out again first. */
  private readonly returned: number[] = [];

  constructor(
    private readonly counters: SequenceStore,
    private readonly options: IdAllocatorOptions,
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
    if (this.options.prefetch && !this.ahead && this.current.end - this.current.next < this.options.blockSize / 2) {
      // A failed prefetch is no failure: the next block is then reserved when it is needed.
      this.ahead = this.reserve().catch(() => undefined);
    }
    const { permutation } = this.options;
    return permutation ? permutation.apply(value) + 1 : value;
  }

  /** True when the next call to {@link nextId} needs no database call. */
  get hasSpare(): boolean {
    return this.returned.length > 0 || (this.current !== undefined && this.current.next < this.current.end);
  }

  /**
   * Give back an id that was certainly never stored (its conditional write was refused), so that
   * refused calls do not drain the block: a stream of refusals then costs no reservation write.
   * At most a block's worth is kept; beyond that an id is simply a gap.
   */
  release(id: number): void {
    if (this.returned.length < this.options.blockSize) this.returned.push(id);
  }

  /** Reserve the next block: of the one item, or of a random shard. */
  private async reserve(): Promise<Block> {
    const { sequence, blockSize, shards, permutation } = this.options;
    let start: number;
    let item = sequence;
    if (shards === undefined) {
      start = (await this.counters.reserve(sequence, blockSize)) - blockSize + 1;
    } else {
      const shard = Math.floor((this.options.random ?? Math.random)() * shards);
      item = `${sequence}#${shard}`;
      const block = await this.counters.reserve(item, 1);
      start = ((block - 1) * shards + shard) * blockSize;
    }
    const last = start + blockSize - 1;
    if (!Number.isSafeInteger(last) || (permutation && last >= PERMUTED_LIMIT)) throw new Error(`sequence ${item} overflowed`);
    return { next: start, end: start + blockSize };
  }
}
