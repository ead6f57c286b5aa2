import type { CounterStore } from './ports.js';

/**
 * A hi/lo id allocator: reserves blocks of ids with one atomic counter update and hands them out
 * from memory, so that taking an id is usually free. Ids are positive, unique across containers
 * (each block is reserved atomically) and stay far below 2^53; gaps are expected.
 */
export class BlockIdAllocator {
  private next = 1;
  private last = 0;
  private refilling: Promise<void> | undefined;

  constructor(
    private readonly counters: CounterStore,
    private readonly sequence: string,
    private readonly blockSize: number,
  ) {}

  /** The next id of the sequence. */
  async nextId(): Promise<number> {
    while (this.next > this.last) {
      // Concurrent callers share one reservation instead of each burning a block.
      this.refilling ??= this.refill().finally(() => (this.refilling = undefined));
      await this.refilling;
    }
    return this.next++;
  }

  /** True when the next call to {@link nextId} needs no database call. */
  get hasSpare(): boolean {
    return this.next <= this.last;
  }

  private async refill(): Promise<void> {
    const last = await this.counters.reserve(this.sequence, this.blockSize);
    if (!Number.isSafeInteger(last)) throw new Error(`sequence ${this.sequence} overflowed`);
    this.next = last - this.blockSize + 1;
    this.last = last;
  }
}
