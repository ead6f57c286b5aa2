/**
 * A rotation whose new key could not be stored takes the old key's retirement
 * back, and that undo is a compare-and-swap on the real conditional write: it restores the key only
 * while the key still holds exactly this rotation's retirement, never over a later admin's change.
 */
import { afterAll, beforeAll, describe, expect, test } from '@jest/globals';
import { isoTime } from '../../shared/platform/time.js';
import { createTestKey } from '../support/keys.js';
import { startStack, type Stack } from '../support/local-stack.js';

let stack: Stack;
beforeAll(async () => {
  stack = await startStack();
});
afterAll(() => stack.stop());

/** Fixed moments (the test clock follows wall time: each is computed once). */
const T0 = Date.parse('2026-11-23T10:00:00.000Z');
const at = (offsetMs: number) => isoTime(T0 + offsetMs);

describe('KeyAdminStore.unretire', () => {
  test('takes back this rotation’s own retirement', async () => {
    const { record } = await createTestKey(stack);
    const keys = stack.services.stores.keys;
    await keys.update(record, { is_active: false, expires_at: at(0), rotated_to: 777 }, at(1), { unrotated: true });
    await expect(keys.unretire(record, { is_active: true, expires_at: null }, 777, at(1))).resolves.toBe(true);
    expect(await keys.getByHash(record.key_hash)).toMatchObject({ is_active: true, expires_at: null, rotated_to: null });
  });

  test('never overwrites a change made after the retirement', async () => {
    const { record } = await createTestKey(stack);
    const keys = stack.services.stores.keys;
    await keys.update(record, { is_active: false, expires_at: at(0), rotated_to: 778 }, at(1), { unrotated: true });
    // Another admin acts on the key meanwhile.
    await keys.update(record, { name: 'renamed meanwhile' }, at(2));
    await expect(keys.unretire(record, { is_active: true, expires_at: null }, 778, at(1))).resolves.toBe(false);
    expect(await keys.getByHash(record.key_hash)).toMatchObject({ is_active: false, rotated_to: 778, name: 'renamed meanwhile' });
  });

  test('does nothing to a key retired by another rotation', async () => {
    const { record } = await createTestKey(stack);
    const keys = stack.services.stores.keys;
    await keys.update(record, { is_active: false, expires_at: at(0), rotated_to: 779 }, at(1), { unrotated: true });
    await expect(keys.unretire(record, { is_active: true, expires_at: null }, 780, at(1))).resolves.toBe(false);
    expect(await keys.getByHash(record.key_hash)).toMatchObject({ is_active: false, rotated_to: 779 });
  });
});
