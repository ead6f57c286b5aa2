/** The per-organization report budget (docs/decisions.md#usage-reports): 30 a minute, then 429 from memory. */
import { describe, expect, test } from '@jest/globals';
import { RateLimited, statusOf } from '../../shared/platform/errors.js';
import { REPORTS_PER_MINUTE, ReportBudget } from '../../shared/usage/report-budget.js';
import type { ReportBudgetStore } from '../../shared/usage/ports.js';

/** Counter items in memory, with the writes they took. */
class MemoryBudgetStore implements ReportBudgetStore {
  readonly counts = new Map<string, number>();
  writes = 0;
  async takeReport(orgId: number, minuteMs: number, limit: number): Promise<boolean> {
    this.writes++;
    const key = `${orgId}#${minuteMs}`;
    const count = this.counts.get(key) ?? 0;
    if (count >= limit) return false;
    this.counts.set(key, count + 1);
    return true;
  }
}

describe('ReportBudget', () => {
  test(`${REPORTS_PER_MINUTE} reports a minute per org; the next is a 429 with the seconds to the minute's end, then refused from memory`, async () => {
    let now = Date.parse('2026-03-10T12:00:17.500Z');
    const store = new MemoryBudgetStore();
    const budget = new ReportBudget({ store, clock: { now: () => now } });
    for (let i = 0; i < REPORTS_PER_MINUTE; i++) await budget.take(1);
    const refused = await budget.take(1).catch((e: unknown) => e);
    expect(refused).toBeInstanceOf(RateLimited);
    expect(statusOf(refused)).toBe(429);
    expect(refused).toMatchObject({
      retryAfterSeconds: 43,
      message: expect.stringContaining('30 usage reports a minute per organization'),
    });
    const writes = store.writes;
    await expect(budget.take(1)).rejects.toBeInstanceOf(RateLimited);
    expect(store.writes).toBe(writes);
    // Another org has its own budget; the next minute starts afresh.
    await budget.take(2);
    now += 43_000;
    await budget.take(1);
  });
});
