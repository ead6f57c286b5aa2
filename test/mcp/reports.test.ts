/**
 * get_session_report: sessions per UTC creation day, with where each stands now (consumed, expired,
 * revoked, still active), per day, per game or stream and per key, for the key's organization only.
 */
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { afterAll, beforeAll, describe, expect, test } from '@jest/globals';
import { createTestKey, UNLIMITED, type TestKey } from '../support/keys.js';
import { startStack, type Stack } from '../support/local-stack.js';
import { callTool, connectMcp, textOf } from '../support/mcp.js';
import { sessionsApi } from '../support/sessions-api.js';
import { stopAll } from '../support/teardown.js';

const DAY = 86_400_000;
const zero = { created: 0, active: 0, consumed: 0, expired: 0, revoked: 0, rate_limited: 0, forbidden: 0 };
/** No refused calls: the counts every report gained beside the sessions'. */
const none = { rate_limited: 0, forbidden: 0 };

let stack: Stack;
let reporter: TestKey;
let minter: TestKey;
let globex: TestKey;
let client: Client;
let day1: string;
let day2: string;

const dayOf = (ms: number) => new Date(ms).toISOString().slice(0, 10);
/** Move the clock to 01:00 UTC of the next day (the clock never goes back). */
const nextDay = () => {
  const now = stack.clock.now();
  stack.clock.advance(Math.ceil(now / DAY) * DAY + 3_600_000 - now);
};
const report = async (args: Record<string, unknown>, c: Client = client) => {
  const result = await callTool(c, 'get_session_report', args);
  expect(result.isError).toBeFalsy();
  return result.structuredContent as any;
};

beforeAll(async () => {
  stack = await startStack();
  reporter = await createTestKey(stack, { ...UNLIMITED, mcp_scopes: ['mcp:reports:read', 'mcp:sessions:write'] });
  minter = await createTestKey(stack, UNLIMITED);
  globex = await createTestKey(stack, { ...UNLIMITED, mcp_scopes: ['mcp:reports:read'] }, { org_id: 2, tier: 'enterprise' });
  const rest = sessionsApi(stack, () => minter.raw);

  // Day 1, over REST: four sessions of game 101 and one of stream 201 by the minter, one short-lived
  // session of game 101 by the reporter; one consumed, one revoked, the short one left to expire.
  nextDay();
  day1 = dayOf(stack.clock.now());
  // A week's lifetime, so that day 1's open sessions are still active on day 2.
  const week = { expires_in_minutes: 7 * 1440 };
  const [consumed, revoked] = [await rest.mint({ game_id: 101, ...week }), await rest.mint({ game_id: 101, ...week })];
  await rest.mint({ game_id: 101, ...week });
  await rest.mint({ stream_id: 201, ...week });
  await rest.mint({ game_id: 101, expires_in_minutes: 1 }, reporter.raw);
  expect((await rest.consume({ token: consumed })).status).toBe(200);
  expect((await rest.revoke({ token: revoked })).status).toBe(200);
  await rest.mint({ game_id: 301, ...week }, globex.raw);
  await rest.mint({ game_id: 301, ...week }, globex.raw);
  stack.clock.advance(120_000);

  // Day 2, over MCP: two sessions of game 102, one consumed.
  nextDay();
  day2 = dayOf(stack.clock.now());
  client = await connectMcp(stack, reporter.raw);
  const minted = await callTool(client, 'create_session', { game_id: 102 });
  await callTool(client, 'create_session', { game_id: 102 });
  expect((await rest.consume({ token: (minted.structuredContent as { token: string }).token })).status).toBe(200);
});
// Each step runs even when the one before fails (or never started): no server outlives the file.
afterAll(() =>
  stopAll(
    () => client?.close(),
    () => stack?.stop(),
  ),
);

describe('get_session_report', () => {
  test('counts per creation day, with each session’s status now', async () => {
    const r = await report({ from: day1, to: day2 });
    expect(r).toMatchObject({ from: day1, to: day2, truncated: false });
    expect(r.totals).toEqual({ created: 7, active: 3, consumed: 2, expired: 1, revoked: 1, ...none });
    expect(r.days).toEqual([
      { date: day1, created: 5, active: 2, consumed: 1, expired: 1, revoked: 1, ...none },
      { date: day2, created: 2, active: 1, consumed: 1, expired: 0, revoked: 0, ...none },
    ]);
  });

  test('per game or stream and per key', async () => {
    const r = await report({ from: day1, to: day2 });
    expect(r.by_target).toEqual([
      { date: day1, game_id: 101, stream_id: null, created: 4, active: 1, consumed: 1, expired: 1, revoked: 1, ...none },
      { date: day1, game_id: null, stream_id: 201, created: 1, active: 1, consumed: 0, expired: 0, revoked: 0, ...none },
      { date: day2, game_id: 102, stream_id: null, created: 2, active: 1, consumed: 1, expired: 0, revoked: 0, ...none },
    ]);
    expect(r.by_key).toEqual([
      { date: day1, key_id: reporter.record.id, ...zero, created: 1, expired: 1 },
      { date: day1, key_id: minter.record.id, created: 4, active: 2, consumed: 1, expired: 0, revoked: 1, ...none },
      { date: day2, key_id: reporter.record.id, created: 2, active: 1, consumed: 1, expired: 0, revoked: 0, ...none },
    ]);
  });

  test.each([
    [{ game_id: 101 }, { created: 4, active: 1, consumed: 1, expired: 1, revoked: 1, ...none }],
    [{ stream_id: 201 }, { ...zero, created: 1, active: 1 }],
    [{ game_id: 301 }, zero],
    [{ key_id: 1 }, zero],
  ])('filtered by %p', async (filter, totals) => {
    expect((await report({ from: day1, to: day2, ...filter })).totals).toEqual(totals);
  });

  test('filtered by key', async () => {
    expect((await report({ from: day1, to: day2, key_id: minter.record.id })).totals).toEqual({
      created: 4,
      active: 2,
      consumed: 1,
      expired: 0,
      revoked: 1,
      ...none,
    });
  });

  test('only the key’s own organization is counted', async () => {
    const theirs = await connectMcp(stack, globex.raw);
    const r = await report({ from: day1, to: day2 }, theirs);
    expect(r.totals).toEqual({ ...zero, created: 2, active: 2 });
    expect(r.by_target).toEqual([{ date: day1, game_id: 301, stream_id: null, ...zero, created: 2, active: 2 }]);
    await theirs.close();
  });

  test('days without sessions are listed with zeros; the text sums up', async () => {
    const before = dayOf(Date.parse(day1) - 2 * DAY);
    const result = await callTool(client, 'get_session_report', { from: before, to: day1 });
    const r = result.structuredContent as any;
    expect(r.days.map((d: any) => [d.date, d.created])).toEqual([
      [before, 0],
      [dayOf(Date.parse(day1) - DAY), 0],
      [day1, 5],
    ]);
    expect(textOf(result)).toBe(
      `${before} to ${day1}: 5 created: 1 consumed, 1 expired, 1 revoked, 2 still active\n` +
        `${day1}: 5 created: 1 consumed, 1 expired, 1 revoked, 2 still active`,
    );
  });

  test('complete_from: the first day whose sessions cannot have been cleaned up yet (7 days after expiry)', async () => {
    const r = await report({ from: day2, to: day2 });
    const oldest = stack.clock.now() - 7 * DAY - 60_000;
    expect(r.complete_from).toBe(dayOf(Math.floor(oldest / DAY) * DAY + DAY));
  });

  test.each([
    [{ from: '2026-02-10', to: '2026-02-09' }, 'to: must not be before from'],
    [{ from: '2026-01-01', to: '2026-02-01' }, 'to: the range may span at most 31 days'],
    [{ from: '2026-13-01', to: '2026-13-02' }, /Invalid arguments for tool get_session_report/],
    [{ from: '2026-01-01' }, /Invalid arguments for tool get_session_report/],
  ])('a bad range %p is a tool error', async (args, message) => {
    const result = await callTool(client, 'get_session_report', args);
    expect(result.isError).toBe(true);
    expect(textOf(result)).toMatch(message);
  });

  test('31 days is the longest range', async () => {
    const r = await report({ from: dayOf(Date.parse(day2) - 30 * DAY), to: day2 });
    expect(r.days).toHaveLength(31);
    expect(r.totals.created).toBe(7);
  });
});

// get_session_report answers only for the games and streams of the key's allow-lists.
describe('get_session_report through a key with allow-lists: only the allowed games and streams', () => {
  const connectWith = async (lists: { allowed_game_ids?: number[] | null; allowed_stream_ids?: number[] | null }) => {
    const key = await createTestKey(stack, { ...UNLIMITED, mcp_scopes: ['mcp:reports:read'], ...lists });
    return connectMcp(stack, key.raw);
  };

  test('games [101], streams []: game 101 only, in the totals, the days, by target and by key', async () => {
    const narrow = await connectWith({ allowed_game_ids: [101], allowed_stream_ids: [] });
    const r = await report({ from: day1, to: day2 }, narrow);
    const game101 = { created: 4, active: 1, consumed: 1, expired: 1, revoked: 1, ...none };
    expect(r.totals).toEqual(game101);
    expect(r.days).toEqual([
      { date: day1, ...game101 },
      { date: day2, ...zero },
    ]);
    expect(r.by_target).toEqual([{ date: day1, game_id: 101, stream_id: null, ...game101 }]);
    expect(r.by_key).toEqual([
      { date: day1, key_id: reporter.record.id, ...zero, created: 1, expired: 1 },
      { date: day1, key_id: minter.record.id, created: 3, active: 1, consumed: 1, expired: 0, revoked: 1, ...none },
    ]);
    await narrow.close();
  });

  test('a stream list only (games: every one) and an empty game list (streams: every one)', async () => {
    const noStreams = await connectWith({ allowed_stream_ids: [] });
    expect((await report({ from: day1, to: day2 }, noStreams)).totals).toEqual({
      created: 6,
      active: 2,
      consumed: 2,
      expired: 1,
      revoked: 1,
      ...none,
    });
    await noStreams.close();
    const noGames = await connectWith({ allowed_game_ids: [] });
    expect((await report({ from: day1, to: day2 }, noGames)).totals).toEqual({ ...zero, created: 1, active: 1 });
    await noGames.close();
  });

  test.each([
    [{ game_id: 102 }, 'This API key has no access to game 102'],
    [{ stream_id: 201 }, 'This API key has no access to stream 201'],
    [{ game_id: 101, stream_id: 201 }, 'This API key has no access to stream 201'],
  ])('a filter on a game or stream outside the lists %p is the "no access" tool error', async (filter, message) => {
    const narrow = await connectWith({ allowed_game_ids: [101], allowed_stream_ids: [] });
    const result = await callTool(narrow, 'get_session_report', { from: day1, to: day2, ...filter });
    expect(result.isError).toBe(true);
    expect(textOf(result)).toBe(message);
    await narrow.close();
  });
});

describe('refused calls in the report (the same domain function as REST usage)', () => {
  test('a 403 (out of scope) and 429s (counted, then from memory) count on the day they were refused, per key', async () => {
    nextDay();
    const day3 = dayOf(stack.clock.now());
    const limited = await createTestKey(stack, { rate_limit_per_minute: 2, allowed_game_ids: [101] });
    const rest = sessionsApi(stack, () => limited.raw);
    expect((await rest.create({ game_id: 101 })).status).toBe(200);
    expect((await rest.create({ game_id: 102 })).status).toBe(403);
    expect((await rest.create({ game_id: 101 })).status).toBe(429); // counted by the window: audited
    for (let i = 0; i < 3; i++) expect((await rest.create({ game_id: 101 })).status).toBe(429); // from memory
    stack.clock.advance(10_000);
    expect((await rest.create({ game_id: 101 })).status).toBe(429); // from memory: the batch of 4 is written
    const r = await report({ from: day3, to: day3 });
    const counts = { ...zero, created: 1, active: 1, rate_limited: 5, forbidden: 1 };
    expect(r.totals).toEqual(counts);
    expect(r.by_key).toEqual([{ date: day3, key_id: limited.record.id, ...counts }]);
    // The game of an audited refusal is known; 429s from memory name none, so by_target leaves them out.
    expect(r.by_target).toEqual([
      { date: day3, game_id: 101, stream_id: null, ...counts, forbidden: 0, rate_limited: 1 },
      { date: day3, game_id: 102, stream_id: null, ...zero, forbidden: 1 },
    ]);
    expect((await report({ from: day3, to: day3, key_id: limited.record.id })).totals).toEqual(counts);
    expect((await report({ from: day3, to: day3, key_id: reporter.record.id })).totals).toEqual(zero);
    // Through a key allowed game 101 only: the 403 for game 102 and the 429s from memory (no game) are left out.
    const narrowKey = await createTestKey(stack, { ...UNLIMITED, mcp_scopes: ['mcp:reports:read'], allowed_game_ids: [101] });
    const narrow = await connectMcp(stack, narrowKey.raw);
    expect((await report({ from: day3, to: day3 }, narrow)).totals).toEqual({ ...zero, created: 1, active: 1, rate_limited: 1 });
    await narrow.close();
  });
});
