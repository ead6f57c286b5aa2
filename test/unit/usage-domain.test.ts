/**
 * The pure parts of the usage domain: the batches of refusals answered from memory, the before and
 * after values of an update, the report's refused-call counts, and who may do what.
 */
import { describe, expect, test } from '@jest/globals';
import { AdminAccess } from '../../shared/catalog/admin-access.js';
import { diffOf } from '../../shared/audit/audit-record.js';
import type { Org, Role } from '../../shared/catalog/model.js';
import type { TokenRecord } from '../../shared/sessions/model.js';
import type { RefusalCountRow } from '../../shared/audit/ports.js';
import type { TokenReportStore } from '../../shared/usage/ports.js';
import { RefusalTally } from '../../shared/keys/refusals-from-memory.js';
import { SessionReports } from '../../shared/usage/reports.js';
import { FixedClock } from '../support/fakes.js';

const NOW = Date.parse('2026-03-10T12:00:00.000Z');
const KEY = { id: 7, org_id: 1, rate_limit_per_minute: 1, rate_limit_per_day: 10 };

describe('RefusalTally', () => {
  test('a batch starts with its first refusal and is handed out by one 10 seconds later, with every refusal since', () => {
    const tally = new RefusalTally();
    for (let i = 0; i < 5; i++) expect(tally.note(KEY, NOW + i * 1_000)).toBeUndefined();
    expect(tally.note(KEY, NOW + 10_000)).toEqual({ orgId: 1, keyId: 7, day: '2026-03-10', count: 6 });
    expect(tally.take(KEY)).toBeUndefined();
  });

  test('a new day hands out the earlier day’s batch and starts its own; take hands out what is pending', () => {
    const tally = new RefusalTally();
    tally.note(KEY, Date.parse('2026-03-10T23:59:59.000Z'));
    expect(tally.note(KEY, Date.parse('2026-03-11T00:00:01.000Z'))).toEqual({ orgId: 1, keyId: 7, day: '2026-03-10', count: 1 });
    expect(tally.take(KEY)).toEqual({ orgId: 1, keyId: 7, day: '2026-03-11', count: 1 });
  });

  test('a batch whose write failed goes out with the next one of its day', () => {
    const tally = new RefusalTally();
    tally.restore({ orgId: 1, keyId: 7, day: '2026-03-10', count: 4 }, NOW);
    tally.note(KEY, NOW);
    expect(tally.take(KEY)).toMatchObject({ count: 5 });
  });

  test('a failed batch of another day than the pending one is kept, and goes out on its own', () => {
    const tally = new RefusalTally();
    const today = Date.parse('2026-03-11T00:00:05.000Z');
    tally.note(KEY, today);
    tally.restore({ orgId: 1, keyId: 7, day: '2026-03-10', count: 4 }, today);
    // The next refusal hands out the earlier day's batch at once; today's waits its ten seconds.
    expect(tally.note(KEY, today + 1_000)).toEqual({ orgId: 1, keyId: 7, day: '2026-03-10', count: 4 });
    expect(tally.take(KEY)).toEqual({ orgId: 1, keyId: 7, day: '2026-03-11', count: 2 });
    expect(tally.take(KEY)).toBeUndefined();
    // Restored while today's batch is pending, then taken by counted calls: one batch a call, none lost.
    tally.note(KEY, today);
    tally.restore({ orgId: 1, keyId: 7, day: '2026-03-09', count: 3 }, today);
    const taken = [tally.take(KEY), tally.take(KEY), tally.take(KEY)];
    expect(taken).toEqual(
      expect.arrayContaining([
        { orgId: 1, keyId: 7, day: '2026-03-09', count: 3 },
        { orgId: 1, keyId: 7, day: '2026-03-11', count: 1 },
      ]),
    );
    expect(taken[2]).toBeUndefined();
  });
});

describe('diffOf', () => {
  test('only fields whose value changed; lists compared by value; absent reads as null', () => {
    const before = { name: 'a', list: [1, 2], limit: 5, description: undefined as string | undefined };
    const after = { name: 'a', list: [1, 2, 3], limit: 5, description: 'now' };
    expect(diffOf(before, after, ['name', 'list', 'limit', 'description'])).toEqual({
      list: { before: [1, 2], after: [1, 2, 3] },
      description: { before: null, after: 'now' },
    });
  });
});

describe('SessionReports with refusals', () => {
  const token = (n: number, over: Partial<TokenRecord> = {}): TokenRecord => ({
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
  });
  const tokens = [token(1)];
  const store: TokenReportStore = {
    tokensCreated: async (_org: number, from: string, to: string) => ({
      records: tokens.filter((t) => t.created_at.slice(0, 10) >= from && t.created_at.slice(0, 10) <= to),
    }),
  };
  const asked: unknown[] = [];
  // Two audited refusals (with their game or stream) and the key's 40 429s from memory (with neither).
  const rows: RefusalCountRow[] = [
    { day: '2026-03-10', kind: 'rate_limited', key_id: 7, game_id: 101, stream_id: null, count: 1 },
    { day: '2026-03-10', kind: 'forbidden', key_id: 8, game_id: null, stream_id: 201, count: 1 },
    { day: '2026-03-10', kind: 'rate_limited', key_id: 7, game_id: null, stream_id: null, count: 40 },
  ];
  const reports = new SessionReports({
    store,
    rollups: {
      refusalCounts: async (_org, from, to) => (asked.push([from, to]), { rows: rows.filter((r) => r.day >= from && r.day <= to) }),
    },
    clock: new FixedClock(NOW),
    tokenRetentionDays: 7,
  });
  const zero = { created: 0, active: 0, consumed: 0, expired: 0, revoked: 0, rate_limited: 0, forbidden: 0 };

  test('audited refusals count per day, target and key; tallies from memory per day and key only', async () => {
    const r = await reports.report(1, { from: '2026-03-09', to: '2026-03-10' });
    expect(asked).toEqual([['2026-03-09', '2026-03-10']]);
    expect(r.totals).toEqual({ ...zero, created: 1, active: 1, rate_limited: 41, forbidden: 1 });
    expect(r.days).toEqual([
      { date: '2026-03-09', ...zero },
      { date: '2026-03-10', ...zero, created: 1, active: 1, rate_limited: 41, forbidden: 1 },
    ]);
    expect(r.by_target).toEqual([
      { date: '2026-03-10', game_id: 101, stream_id: null, ...zero, created: 1, active: 1, rate_limited: 1 },
      { date: '2026-03-10', game_id: null, stream_id: 201, ...zero, forbidden: 1 },
    ]);
    expect(r.by_key).toEqual([
      { date: '2026-03-10', key_id: 7, ...zero, created: 1, active: 1, rate_limited: 41 },
      { date: '2026-03-10', key_id: 8, ...zero, forbidden: 1 },
    ]);
  });

  test('a game filter leaves the tallies out (they name no game)', async () => {
    const r = await reports.report(1, { from: '2026-03-10', to: '2026-03-10', game_id: 101 });
    expect(r.totals).toEqual({ ...zero, created: 1, active: 1, rate_limited: 1 });
  });
});

describe('AdminAccess permissions', () => {
  const org: Org = { org_id: 1, slug: 'acme', name: 'Acme', tier: 'business' };
  const access = (role: Role | undefined) => new AdminAccess({ getRole: async () => role, getOrg: async () => org });
  const allowed = async (role: Role, permission: 'keys' | 'usage' | 'catalogRead' | 'catalogWrite') =>
    access(role)
      .authorize({ subject: 's' }, 1, async () => true, { permission })
      .then(() => true)
      .catch(() => false);

  test.each([
    ['keys', ['owner', 'admin']],
    ['usage', ['owner', 'admin', 'analyst']],
    ['catalogRead', ['owner', 'admin', 'editor', 'analyst', 'viewer']],
    ['catalogWrite', ['owner', 'admin', 'editor']],
  ] as const)('%s: %p', async (permission, roles) => {
    const all: Role[] = ['owner', 'admin', 'editor', 'analyst', 'viewer'];
    const granted = [];
    for (const role of all) if (await allowed(role, permission)) granted.push(role);
    expect(granted).toEqual(roles);
  });

  test('a refusal names the roles that may', async () => {
    await expect(access('viewer').authorize({ subject: 's' }, 1, async () => 1, { permission: 'usage' })).rejects.toThrow(
      'Only owners, admins and analysts of the organization may read its usage',
    );
  });
});
