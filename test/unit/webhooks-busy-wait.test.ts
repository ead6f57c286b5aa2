/**
 * A message whose endpoint has every place taken waits (shared/webhooks/deliver.ts `busyWaitMs`):
 * a second first, then twice as long each time, never more than a minute.
 */
import { expect, test } from '@jest/globals';
import { busyWaitMs } from '../../shared/webhooks/deliver.js';

test('1 s, 2 s, 4 s … doubling, capped at 60 s', () => {
  expect([0, 1, 2, 3, 4, 5, 6, 7, 20].map(busyWaitMs)).toEqual([1_000, 2_000, 4_000, 8_000, 16_000, 32_000, 60_000, 60_000, 60_000]);
});
