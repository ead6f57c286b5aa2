/** In-memory fakes of the domain's ports, for unit tests (no I/O). */
import type { Clock } from '../../shared/platform/time.js';
import type { SequenceStore } from '../../shared/platform/ids.js';
import type { ApiKeyRecord } from '../../shared/keys/model.js';
import type { AuditRecord } from '../../shared/audit/model.js';
import type { AuditStore } from '../../shared/audit/ports.js';
import type { CountedLayout, CounterLayoutStore, CounterStore, KeyStore } from '../../shared/keys/ports.js';
import type { CarriedCounts, CounterLayout, CounterSlot, SlotCount } from '../../shared/keys/rate-limit.js';

/** A clock that stands still until moved. */
export class FixedClock implements Clock {
  constructor(public ms: number) {}
  now(): number {
    return this.ms;
  }
}

/** Resolve after the current macrotask, so that concurrent callers really overlap. */
const tick = () => new Promise<void>((resolve) => setImmediate(resolve));

/** Counter shards in a map, with the same conditional semantics as the DynamoDB adapter. */
export class MemoryCounterStore implements CounterStore, CounterLayoutStore, SequenceStore {
  /** Counts by `<counterKey> <field>` (`day` or `m<minute>`), and id sequences by `seq#<name>`. */
  readonly counts = new Map<string, number>();
  /** Counter items closed by a limit change, and the stored layouts by `<key id> <day start>`. */
  readonly sealed = new Set<string>();
  readonly layouts = new Map<string, CounterLayout>();
  readonly calls: string[] = [];
  /** Make the next calls of a kind fail with this error. */
  failNext: Partial<Record<'count' | 'reserve', Error>> = {};
  /** Make the next counts fail with these errors, one each, in order. */
  failCounts: Error[] = [];

  async count(slot: CounterSlot): Promise<SlotCount> {
    this.calls.push(`count ${slot.counterKey}`);
    await tick();
    const queued = this.failCounts.shift();
    if (queued) throw queued;
    this.throwIfFailing('count');
    if (this.sealed.has(slot.counterKey)) return { sealed: true };
    const day = this.counts.get(`${slot.counterKey} day`) ?? 0;
    const minute = this.counts.get(`${slot.counterKey} ${slot.minuteField}`) ?? 0;
    if (day >= slot.dayLimit) return { refusedBy: 'day' };
    if (minute >= slot.minuteLimit) return { refusedBy: 'minute' };
    this.counts.set(`${slot.counterKey} day`, day + 1);
    this.counts.set(`${slot.counterKey} ${slot.minuteField}`, minute + 1);
    return { minute: minute + 1, day: day + 1 };
  }

  async uncount(slot: CounterSlot, layout: CountedLayout): Promise<void> {
    this.calls.push(`uncount ${slot.counterKey}`);
    await tick();
    if (this.sealed.has(slot.counterKey)) {
      // Carried into a later layout: taken back from what it carries, as the adapter does.
      const id = `${layout.keyId} ${layout.dayStart}`;
      const later = this.layouts.get(id);
      if (!later || later.index <= layout.index) return;
      const m = slot.minuteField;
      const minutes = { ...later.carried.minutes, [m]: (later.carried.minutes[m] ?? 0) - 1 };
      this.layouts.set(id, { ...later, carried: { day: later.carried.day - 1, minutes } });
      return;
    }
    for (const field of ['day', slot.minuteField]) {
      const k = `${slot.counterKey} ${field}`;
      this.counts.set(k, (this.counts.get(k) ?? 0) - 1);
    }
  }

  async layoutOf(keyId: number, dayStart: number): Promise<CounterLayout | undefined> {
    await tick();
    return this.layouts.get(`${keyId} ${dayStart}`);
  }

  async seal(counterKeys: readonly string[]): Promise<CarriedCounts> {
    await tick();
    const minutes: Record<string, number> = {};
    let day = 0;
    for (const counterKey of counterKeys) {
      this.sealed.add(counterKey);
      for (const [k, n] of this.counts) {
        const [item, field] = k.split(' ');
        if (item !== counterKey) continue;
        if (field === 'day') day += n;
        else minutes[field!] = (minutes[field!] ?? 0) + n;
      }
    }
    return { day, minutes };
  }

  async replaceLayout(keyId: number, dayStart: number, next: CounterLayout, replaces: number): Promise<boolean> {
    await tick();
    const id = `${keyId} ${dayStart}`;
    if ((this.layouts.get(id)?.index ?? 0) !== replaces) return false;
    this.layouts.set(id, next);
    return true;
  }

  async reserve(sequence: string, size: number): Promise<number> {
    this.calls.push(`reserve ${sequence} ${size}`);
    await tick();
    this.throwIfFailing('reserve');
    const last = (this.counts.get(`seq#${sequence}`) ?? 0) + size;
    this.counts.set(`seq#${sequence}`, last);
    return last;
  }

  private throwIfFailing(kind: 'count' | 'reserve'): void {
    const error = this.failNext[kind];
    if (error) {
      delete this.failNext[kind];
      throw error;
    }
  }
}

/** Keys by hash; records `touch` calls. */
export class MemoryKeyStore implements KeyStore {
  readonly keys = new Map<string, ApiKeyRecord>();
  readonly touches: { keyHash: string; at: string }[] = [];

  async getByHash(keyHash: string): Promise<ApiKeyRecord | undefined> {
    return this.keys.get(keyHash);
  }
  async touch(keyHash: string, at: string): Promise<void> {
    this.touches.push({ keyHash, at });
  }
  async create(key: ApiKeyRecord): Promise<void> {
    if (this.keys.has(key.key_hash)) throw new Error('exists');
    this.keys.set(key.key_hash, key);
  }
}

/** Audit records keyed like the table (org, time, request): a rewrite replaces the record. */
export class MemoryAuditStore implements AuditStore {
  readonly records = new Map<string, AuditRecord>();
  readonly puts: AuditRecord[] = [];
  /** Make the next put fail with this error. */
  failNext: Error | undefined;

  async put(placed: AuditRecord, _ttl: number): Promise<AuditRecord> {
    const { shard: _shard, ...record } = placed;
    this.puts.push(record);
    await tick();
    if (this.failNext) {
      const error = this.failNext;
      this.failNext = undefined;
      throw error;
    }
    this.records.set(`${record.org_id}#${record.at}#${record.request_id}`, record);
    return { ...record, shard: 0 };
  }

  async remove(record: AuditRecord): Promise<void> {
    await tick();
    this.records.delete(`${record.org_id}#${record.at}#${record.request_id}`);
  }
}
