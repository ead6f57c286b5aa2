/** The session report's rules, on an in-memory index: range bounds, counting by status now, the read cap. */
import { describe, expect, test } from '@jest/globals';
import type { TokenRecord } from '../../shared/sessions/model.js';
import type { RefusalCountRow } from '../../shared/audit/ports.js';
import type { TokenReads } from '../../shared/usage/ports.js';
import type { TokenReportStore } from '../../shared/usage/ports.js';
import { MAX_REPORT_DAYS, MAX_REPORT_TOKENS, SessionReports } from '../../shared/usage/reports.js';
import { FixedClock } from '../support/fakes.js';

const NOW = Date.parse('2026-03-10T12:00:00.000Z');

function token(n: number, over: Partial<TokenRecord> = {}): TokenRecord {
  return {
    token: `00000000-0000-4000-8000-${String(n).padStart(12, '0')}`,
    org_id: 1,
    key_id: 7,
    game_id: 101,
    stream_id: null,
    external_ref: null,
    metadata: null,
    player_ref: null,
    status: 'active',
    created_at: '2026-03-10T08:00:00.000Z',
    expires_at: '2026-03-11T08:00:00.000Z',
    ...over,
  };
}

/** The report index in memory; records which days were queried and how many tokens were read. */
class MemoryReportStore implements TokenReportStore {
  readonly queried: string[] = [];
  read = 0;
  constructor(private readonly tokens: TokenRecord[]) {}
  async tokensCreated(orgId: number, from: string, to: string, limit: number): Promise<TokenReads> {
    for (let day = from; day <= to; day = new Date(Date.parse(day) + 86_400_000).toISOString().slice(0, 10)) this.queried.push(day);
    const found = this.tokens.filter((t) => t.org_id === orgId && t.created_at.slice(0, 10) >= from && t.created_at.slice(0, 10) <= to);
    const records = found.slice(0, limit);
    this.read += records.length;
    return { records, ...(found.length > limit && { more: true }) };
  }
}

const reports = (store: TokenReportStore) => new SessionReports({ store, clock: new FixedClock(NOW), tokenRetentionDays: 7 });

describe('SessionReports', () => {
  test('each session counts once as created and once by its status now (an active one past expiry is expired)', async () => {
    const store = new MemoryReportStore([
      token(1),
      token(2, { status: 'consumed' }),
      token(3, { status: 'revoked' }),
      token(4, { expires_at: '2026-03-10T09:00:00.000Z' }),
      token(5, { org_id: 2 }),
      token(6, { created_at: '2026-03-09T23:59:59.999Z', game_id: null, stream_id: 201, key_id: 8 }),
    ]);
    const r = await reports(store).report(1, { from: '2026-03-09', to: '2026-03-10' });
    expect(store.queried.sort()).toEqual(['2026-03-09', '2026-03-10']);
    expect(r.totals).toEqual({ created: 5, active: 2, consumed: 1, expired: 1, revoked: 1, rate_limited: 0, forbidden: 0 });
    expect(r.days.map((d) => [d.date, d.created])).toEqual([
      ['2026-03-09', 1],
      ['2026-03-10', 4],
    ]);
    expect(r.by_target.map((t) => [t.date, t.game_id, t.stream_id, t.created])).toEqual([
      ['2026-03-09', null, 201, 1],
      ['2026-03-10', 101, null, 4],
    ]);
    expect(r.by_key.map((k) => [k.date, k.key_id, k.created])).toEqual([
      ['2026-03-09', 8, 1],
      ['2026-03-10', 7, 4],
    ]);
    expect(r.complete_from).toBe('2026-03-04');
    expect(r.truncated).toBe(false);
  });

  test(`ranges: from <= to, at most ${MAX_REPORT_DAYS} days, nothing read otherwise`, async () => {
    const store = new MemoryReportStore([]);
    await expect(reports(store).report(1, { from: '2026-03-10', to: '2026-03-09' })).rejects.toThrow('to: must not be before from');
    await expect(reports(store).report(1, { from: '2026-01-01', to: '2026-02-01' })).rejects.toThrow(`at most ${MAX_REPORT_DAYS} days`);
    expect(store.queried).toEqual([]);
    const longest = await reports(store).report(1, { from: '2026-01-01', to: '2026-01-31' });
    expect(longest.days).toHaveLength(MAX_REPORT_DAYS);
  });

  test(`past ${MAX_REPORT_TOKENS} sessions the report reads no more and says it is truncated`, async () => {
    const many = Array.from({ length: MAX_REPORT_TOKENS + 5 }, (_, i) => token(i));
    const store = new MemoryReportStore(many);
    const r = await reports(store).report(1, { from: '2026-03-10', to: '2026-03-10' });
    expect(r.truncated).toBe(true);
    expect(store.read).toBe(MAX_REPORT_TOKENS);
    expect(r.totals.created).toBe(MAX_REPORT_TOKENS);
  });
});

describe('a token minted at the very end of a day', () => {
  /** A store that hands it twice, and beside the next day's tokens too (a read running a moment past its range). */
  class LaggingStore extends MemoryReportStore {
    override async tokensCreated(orgId: number, from: string, to: string, limit: number): Promise<TokenReads> {
      const own = await super.tokensCreated(orgId, from, to, limit);
      return { records: [...own.records, late, late] };
    }
  }
  const late = token(77, { created_at: '2026-03-08T23:59:59.999Z' });

  test('counts once, on its own creation day, and not on a day outside the range', async () => {
    const store = new LaggingStore([late, token(78, { created_at: '2026-03-09T10:00:00.000Z' })]);
    const both = await reports(store).report(1, { from: '2026-03-08', to: '2026-03-09' });
    expect(both.totals.created).toBe(2);
    expect(both.days.find((d) => d.date === '2026-03-08')?.created).toBe(1);
    const second = await reports(store).report(1, { from: '2026-03-09', to: '2026-03-09' });
    expect(second.totals.created).toBe(1);
  });
});

describe('a range whose read of refused calls stopped short', () => {
  /** Few tokens, but the read of the rollup of refused calls was cut short when it covers 2026-03-10. */
  const rollups = {
    refusalCounts: async (_org: number, _from: string, to: string) => ({ rows: [] as RefusalCountRow[], cut: to >= '2026-03-10' }),
  };
  const cutReports = (store: TokenReportStore) => new SessionReports({ store, rollups, clock: new FixedClock(NOW), tokenRetentionDays: 7 });

  test('the report says it is truncated though it counted fewer tokens than the cap', async () => {
    const store = new MemoryReportStore([token(1), token(2, { created_at: '2026-03-09T08:00:00.000Z' })]);
    const r = await cutReports(store).report(1, { from: '2026-03-09', to: '2026-03-10' });
    expect(r.totals.created).toBe(2);
    expect(r.truncated).toBe(true);
    const earlier = await cutReports(store).report(1, { from: '2026-03-09', to: '2026-03-09' });
    expect(earlier.truncated).toBe(false);
  });
});

describe("a read the request's deadline cut short", () => {
  /** The tokens read in time: the first only (`shared/usage/token-report-store.ts` stops between pages). */
  class DeadlineStore extends MemoryReportStore {
    override async tokensCreated(orgId: number, from: string, to: string, limit: number): Promise<TokenReads> {
      const all = await super.tokensCreated(orgId, from, to, limit);
      return { records: all.records.slice(0, 1), cut: all.records.length > 1 };
    }
  }

  test('the report counts what was read in time and says it is truncated', async () => {
    const r = await reports(new DeadlineStore([token(1), token(2)])).report(1, { from: '2026-03-10', to: '2026-03-10' });
    expect(r.totals.created).toBe(1);
    expect(r.truncated).toBe(true);
  });

  /** A day with one audited 429, the rest of the rollup's read left undone by the deadline. */
  const rollups = {
    refusalCounts: async (_org: number, from: string) => ({
      rows: [{ day: from, kind: 'rate_limited' as const, key_id: 7, game_id: 101, stream_id: null, count: 1 }],
      cut: true,
    }),
  };

  test('so do refusal counts cut short', async () => {
    const deps = { store: new MemoryReportStore([token(1)]), rollups, clock: new FixedClock(NOW), tokenRetentionDays: 7 };
    const r = await new SessionReports(deps).report(1, { from: '2026-03-10', to: '2026-03-10' });
    expect(r).toMatchObject({ truncated: true, totals: { created: 1, rate_limited: 1 } });
  });
});

// Through a key (MCP get_session_report) the report covers only the key's allow-lists (docs/decisions.md#scopes).
describe('SessionReports through a key’s allow-lists', () => {
  const store = () =>
    new MemoryReportStore([
      token(1),
      token(2, { game_id: 102 }),
      token(3, { game_id: null, stream_id: 201 }),
      token(4, { game_id: null, stream_id: 202, status: 'consumed' }),
    ]);
  const day = { from: '2026-03-10', to: '2026-03-10' };
  const created = async (scope?: { allowed_game_ids: number[] | null; allowed_stream_ids: number[] | null }) => {
    const r = await reports(store()).report(1, day, scope);
    return { total: r.totals.created, targets: r.by_target.map((t) => t.game_id ?? `s${t.stream_id}`) };
  };

  test('no lists (or no key): every game and stream', async () => {
    expect(await created()).toEqual({ total: 4, targets: [101, 102, 's201', 's202'] });
    expect(await created({ allowed_game_ids: null, allowed_stream_ids: null })).toEqual({ total: 4, targets: [101, 102, 's201', 's202'] });
  });

  test('a set list keeps its ids, [] none, null every one of its kind', async () => {
    expect(await created({ allowed_game_ids: [101], allowed_stream_ids: [] })).toEqual({ total: 1, targets: [101] });
    expect(await created({ allowed_game_ids: [], allowed_stream_ids: null })).toEqual({ total: 2, targets: ['s201', 's202'] });
    expect(await created({ allowed_game_ids: null, allowed_stream_ids: [202] })).toEqual({ total: 3, targets: [101, 102, 's202'] });
  });
});
