/** The per-organization budgets (docs/decisions.md#usage-reports, #webhook-hand-sends): 30 reports a minute; 60 sends a minute and 1,000 a day; then 429 from memory. */
import { describe, expect, test } from '@jest/globals';
import { RateLimited, statusOf } from '../../shared/platform/errors.js';
import { REPORTS_PER_MINUTE, ReportBudget } from '../../shared/usage/report-budget.js';
import { OrgBudget, type BudgetCount, type OrgBudgetStore } from '../../shared/platform/org-budget.js';

/** Counter items in memory, with the writes they took. */
class MemoryBudgetStore implements OrgBudgetStore {
  readonly counts = new Map<string, number>();
  writes = 0;
  async takeBudget(pk: string, counts: readonly BudgetCount[]): Promise<readonly string[] | undefined> {
    this.writes++;
    const spent = counts.filter((c) => (this.counts.get(`${pk}#${c.field}`) ?? 0) >= c.limit).map((c) => c.field);
    if (spent.length > 0) return spent;
    for (const c of counts) this.counts.set(`${pk}#${c.field}`, (this.counts.get(`${pk}#${c.field}`) ?? 0) + 1);
    return undefined;
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

describe('OrgBudget with a day', () => {
  const policy = { name: 'sends', title: 'Send limit exceeded', what: 'sends', perMinute: 60, perDay: 1_000 };

  test('60 a minute and 1,000 a day per org, in one item per day; the day spent: Retry-After to UTC midnight, refused from memory', async () => {
    let now = Date.parse('2026-03-10T12:00:00.000Z');
    const store = new MemoryBudgetStore();
    const budget = new OrgBudget({ store, clock: { now: () => now }, policy });
    for (let i = 0; i < 60; i++) await budget.take(1);
    const minute = await budget.take(1).catch((e: unknown) => e);
    expect(minute).toMatchObject({
      window: 'minute',
      retryAfterSeconds: 60,
      message: expect.stringContaining('at most 60 sends a minute'),
    });
    now += 60_000;
    // 940 more, a second apart: at most 60 in any minute.
    for (let i = 0; i < 940; i++, now += 1_000) await budget.take(1);
    const day = await budget.take(1).catch((e: unknown) => e);
    expect(day).toBeInstanceOf(RateLimited);
    const midnight = Date.parse('2026-03-11T00:00:00.000Z');
    expect(day).toMatchObject({ window: 'day', retryAfterSeconds: Math.ceil((midnight - now) / 1000) });
    expect((day as Error).message).toContain('at most 1000 sends a day per organization');
    const writes = store.writes;
    now += 120_000;
    await expect(budget.take(1)).rejects.toMatchObject({ window: 'day' });
    expect(store.writes).toBe(writes);
    await budget.take(2);
    now = midnight;
    await budget.take(1);
  });
});
