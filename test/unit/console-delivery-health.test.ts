/**
 * The endpoint page's "Failing since" (infra/console/parts/delivery-health.ts): the first failed
 * attempt after the newest success among the deliveries listed, newest first; pending deliveries
 * and those never attempted say nothing; a run of failures past the list is "at least".
 */
import { describe, expect, test } from '@jest/globals';
import { failingSince } from '../../infra/console/parts/delivery-health.js';

type Status = 'pending' | 'succeeded' | 'failed' | 'exhausted';

/** A delivery created at minute `minute`, attempted first then (or never). */
const delivery = (status: Status, minute: number, attempted = true) => {
  const at = `2026-11-28T10:${String(minute).padStart(2, '0')}:00.000Z`;
  return { status, attempts: attempted ? 1 : 0, attempts_log: attempted ? [{ at }] : [], created_at: at };
};

describe('failing since, from the newest deliveries', () => {
  test('the newest attempted delivery succeeded: not failing', () => {
    expect(failingSince([delivery('pending', 9), delivery('succeeded', 8), delivery('failed', 7)])).toBeUndefined();
    expect(failingSince([])).toBeUndefined();
  });

  test('failures since the last success: the oldest of them, pending and unattempted ones skipped', () => {
    const newest = [
      delivery('pending', 9),
      delivery('exhausted', 8),
      delivery('exhausted', 7, false),
      delivery('failed', 6),
      delivery('succeeded', 5),
    ];
    expect(failingSince(newest)).toEqual({ since: '2026-11-28T10:06:00.000Z', atLeast: false });
  });

  test('every delivery listed failed: at least since the oldest', () => {
    expect(failingSince([delivery('failed', 8), delivery('exhausted', 3)])).toEqual({ since: '2026-11-28T10:03:00.000Z', atLeast: true });
  });
});
