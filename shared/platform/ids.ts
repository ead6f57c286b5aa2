import type { CounterStore } from '../keys/ports.js';

/**
 * A hi/lo id allocator: reserves blocks of ids with one atomic counter update and hands them out
 * from memory, so that taking an id is usually free. Ids are positive, unique across containers
 * (each block is reserved atomically) and stay far below 2^53; gaps are expected.
 */
export class BlockIdAllocator {
  private next = 1;
  private last = 0;
  private refilling: Promise<void> | undefined;
  /** Ids handed out but never written anywhere (see {@link release}), handed out again first. */
  private readonly returned: number[] = [];

  constructor(
    private readonly counters: CounterStore,
    private readonly sequence: string,
    private readonly blockSize: number,
  ) {}

  /** The next id of the sequence. */
  async nextId(): Promise<number> {
    const spare = this.returned.pop();
    if (spare !== undefined) return spare;
    while (this.next > this.last) {
      // Concurrent callers share one reservation instead of each burning a block.
      this.refilling ??= this.refill().finally(() => (this.refilling = undefined));
      await this.refilling;
    }
    return this.next++;
  }

  /** True when the next call to {@link nextId} needs no database call. */
  get hasSpare(): boolean {
    return this.returned.length > 0 || this.next <= this.last;
  }

  /**
   * Give back an id that was certainly never stored (its conditional write was refused), so that
   * refused calls do not drain the block: a stream of refusals then costs no reservation write.
   * At most a block's worth is kept; beyond that an id is simply a gap.
   */
  release(id: number): void {
    if (this.returned.length < this.blockSize) this.returned.push(id);
  }

  private async refill(): Promise<void> {
    const last = await this.counters.reserve(this.sequence, this.blockSize);
    if (!Number.isSafeInteger(last)) throw new Error(`sequence ${this.sequence} overflowed`);
    this.next = last - this.blockSize + 1;
    this.last = last;
  }
}
