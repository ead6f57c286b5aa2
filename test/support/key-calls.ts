/**
 * The setup of the KeyCalls unit tests (`test/unit/key-calls*.test.ts`): one key of org 1 in
 * in-memory stores, a fixed clock, and the counts of the key's current windows.
 */
import { newKeyRecord } from '../../shared/keys/api-keys.js';
import { KeyCalls } from '../../shared/keys/key-calls.js';
import type { Tier } from '../../shared/catalog/model.js';
import { counterSlot } from '../../shared/keys/rate-limit.js';
import { FixedClock, MemoryAuditStore, MemoryCounterStore, MemoryKeyStore } from './fakes.js';

/** The raw key the setup's key record is made from. */
export const RAW = `dpk_${'0123456789abcdef'.repeat(2)}01234567`;
/** The fixed clock's time: 2026-03-04T05:06:30.000Z, 30 s into a minute. */
export const NOW = Date.UTC(2026, 2, 4, 5, 6, 30);

/**
 * KeyCalls over in-memory stores holding one key of RAW (id 7, org 1, this tier, these settings),
 * with failures of background work collected in `background` and `count` reading a window's count.
 */
export function setup(settings: Partial<Parameters<typeof newKeyRecord>[3]> = {}, tier: Tier = 'business') {
  const clock = new FixedClock(NOW);
  const keys = new MemoryKeyStore();
  const counters = new MemoryCounterStore();
  const audit = new MemoryAuditStore();
  const background: string[] = [];
  const keyCalls = new KeyCalls({
    keys,
    counters,
    audit,
    clock,
    auditRetentionDays: 90,
    partitionWriteUnits: 1000,
    onBackgroundError: (_e, what) => background.push(what),
  });
  const key = newKeyRecord(RAW, 7, { org_id: 1, tier }, { name: 'k', ...settings }, NOW - 1000);
  keys.keys.set(key.key_hash, key);
  const count = (name: 'minute' | 'day') => {
    const slot = counterSlot(key, clock.now(), 0, 1);
    return counters.counts.get(`${slot.counterKey} ${name === 'day' ? 'day' : slot.minuteField}`);
  };
  return { clock, keys, counters, audit, background, keyCalls, key, count };
}
