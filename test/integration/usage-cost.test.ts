/**
 * What a usage report costs and how many an organization may ask for (docs/decisions.md#usage-reports):
 * a report of the longest range, 31 days, makes a bounded number of DynamoDB calls (the tokens'
 * report index and the usage rollup, never a read per day or per token), and REST `usage` and MCP
 * `get_session_report` together are at most 30 a minute per organization, then 429 with `Retry-After`.
 */
import { afterAll, beforeAll, describe, expect, test } from '@jest/globals';
import { adminApi, type AdminApi } from '../support/admin-api.js';
import { createTestKey, startOfNextMinute, UNLIMITED, type TestKey } from '../support/keys.js';
import { startStack, type Stack } from '../support/local-stack.js';
import { postMcp } from '../support/mcp.js';
import { RoundTripRecorder } from '../support/round-trips.js';
import { sessionsApi } from '../support/sessions-api.js';
import { randomUUID } from 'node:crypto';
import type { TokenRecord } from '../../shared/sessions/model.js';
import { DynamoTokenReportStore } from '../../shared/usage/token-report-store.js';
import { DynamoTokenStore, REPORT_SHARDS, reportPartition } from '../../shared/sessions/token-store.js';

const DAY = 86_400_000;
/** The bound on the DynamoDB calls of one 31-day report. */
const MAX_CALLS = 40;
const zero = { created: 0, active: 0, consumed: 0, expired: 0, revoked: 0, rate_limited: 0, forbidden: 0 };

let stack: Stack;
let admin: AdminApi;
let reporter: TestKey;
let globex: TestKey;
let from: string;
let to: string;
const recorder = new RoundTripRecorder();
const dayOf = (ms: number) => new Date(ms).toISOString().slice(0, 10);

/** MCP `get_session_report` as one raw JSON-RPC request (the answer's HTTP status and headers with it). */
const mcpReport = (key: TestKey, args: Record<string, unknown>) =>
  postMcp(
    stack,
    { jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'get_session_report', arguments: args } },
    { 'x-api-key': key.raw },
  );

beforeAll(async () => {
  // Its recorder sees every call of the service's client: the workers' are not this request's.
  stack = await startStack({ workers: false });
  recorder.attach(stack.services.client);
  admin = adminApi(stack);
  await stack.services.stores.catalog.putMember(1, 'acme-owner', 'owner');
  reporter = await createTestKey(stack, { ...UNLIMITED, mcp_scopes: ['mcp:reports:read'] });
  globex = await createTestKey(stack, { ...UNLIMITED, mcp_scopes: ['mcp:reports:read'] }, { org_id: 2, tier: 'enterprise' });
  const minter = await createTestKey(stack, UNLIMITED);
  const limited = await createTestKey(stack, { rate_limit_per_minute: 1, allowed_game_ids: [101] });
  from = dayOf(stack.clock.now());
  // Sessions on three days of the month: one consumed, one revoked; a 403 and a 429 on the last.
  for (let day = 0; day < 3; day++) {
    const api = sessionsApi(stack, () => minter.raw);
    // A month's lifetime: every open session is still active when the report is read.
    const month = { expires_in_minutes: 43_200 };
    const [consumed, revoked] = [await api.mint({ game_id: 101, ...month }), await api.mint({ stream_id: 201, ...month })];
    await api.mint({ game_id: 102, ...month });
    if (day === 0) expect((await api.consume({ token: consumed })).status).toBe(200);
    if (day === 1) expect((await api.revoke({ token: revoked })).status).toBe(200);
    if (day < 2) stack.clock.advance(DAY);
  }
  startOfNextMinute(stack);
  const refused = sessionsApi(stack, () => limited.raw);
  expect((await refused.create({ game_id: 102 })).status).toBe(403);
  expect((await refused.create({ game_id: 101 })).status).toBe(429);
  to = dayOf(Date.parse(from) + 30 * DAY);
});
afterAll(() => stack.stop());

describe('the cost of a 31-day report', () => {
  test(`REST usage: at most ${MAX_CALLS} DynamoDB calls, whatever the range holds, with every count`, async () => {
    startOfNextMinute(stack);
    const { value: res, calls } = await recorder.measure(() => admin.usage({ org_id: 1, from, to }));
    expect(res.status).toBe(200);
    expect(res.body.data.days).toHaveLength(31);
    expect(res.body.data.totals).toEqual({ ...zero, created: 9, active: 7, consumed: 1, revoked: 1, rate_limited: 1, forbidden: 1 });
    expect(calls.length).toBeLessThanOrEqual(MAX_CALLS);
    // No read per day, nor per token.
    expect(calls.filter((c) => c.action === 'BatchGetItem' && c.table === 'tokens')).toEqual([]);
  });

  test(`MCP get_session_report: at most ${MAX_CALLS} DynamoDB calls, the key's own metering included`, async () => {
    startOfNextMinute(stack);
    const { value: res, calls } = await recorder.measure(() => mcpReport(reporter, { from, to }));
    expect(res.status).toBe(200);
    expect(res.body.result.structuredContent.totals).toMatchObject({ created: 9, consumed: 1, revoked: 1, forbidden: 1 });
    expect(calls.length).toBeLessThanOrEqual(MAX_CALLS);
  });
});

describe('the report budget of an organization: 30 a minute, REST usage and MCP get_session_report together', () => {
  test('the 31st report of the minute is 429 with Retry-After, over REST and over MCP; another org is not affected', async () => {
    startOfNextMinute(stack);
    const today = { from: to, to };
    for (let i = 0; i < 15; i++) {
      expect((await admin.usage({ org_id: 1, ...today }, i % 2 ? 'acme-owner' : 'acme-admin')).status).toBe(200);
      const mcp = await mcpReport(reporter, today);
      expect(mcp.status).toBe(200);
      expect(mcp.body.result.isError).toBeFalsy();
    }
    const rest = await admin.usage({ org_id: 1, ...today });
    expect(rest.status).toBe(429);
    expect(Number(rest.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
    expect(Number(rest.headers.get('retry-after'))).toBeLessThanOrEqual(60);
    expect(rest.body).toMatchObject({
      success: false,
      code: 'rate_limited',
      error: expect.stringContaining('at most 30 usage reports a minute per organization'),
      request_id: expect.any(String),
    });
    const mcp = await mcpReport(reporter, today);
    expect(mcp.status).toBe(429);
    expect(Number(mcp.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
    expect(mcp.body).toMatchObject({ success: false, code: 'rate_limited' });
    // Another organization's budget is its own.
    expect((await mcpReport(globex, today)).status).toBe(200);
    // The next minute the org may read its reports again.
    startOfNextMinute(stack);
    expect((await admin.usage({ org_id: 1, ...today })).status).toBe(200);
    expect((await mcpReport(reporter, today)).status).toBe(200);
  });

  test('a report refused for its range (reversed, over 31 days) spends none of the budget, over REST and MCP', async () => {
    startOfNextMinute(stack);
    const reversed = { from: to, to: from === to ? '2000-01-01' : from };
    const tooLong = { from: '2026-01-01', to: '2026-03-01' };
    for (const range of [reversed, tooLong]) {
      for (let i = 0; i < 10; i++) expect((await admin.usage({ org_id: 1, ...range })).status).toBe(400);
      for (let i = 0; i < 10; i++) expect((await mcpReport(reporter, range)).body.result?.isError).toBe(true);
    }
    const today = { from: to, to };
    for (let i = 0; i < 30; i++) expect((await admin.usage({ org_id: 1, ...today })).status).toBe(200);
    expect((await admin.usage({ org_id: 1, ...today })).status).toBe(429);
  });

  test('a caller outside the organization spends none of its budget', async () => {
    startOfNextMinute(stack);
    const today = { org_id: 1, from: to, to };
    for (let i = 0; i < 35; i++) expect((await admin.usage(today, 'globex-admin')).status).toBe(403);
    expect((await admin.usage(today)).status).toBe(200);
  });
});

describe('a report of an org with more sessions than a report counts', () => {
  test('one query per index partition, and the cut report holds the same share of every partition', async () => {
    const options = { client: stack.services.client, tableName: stack.services.env.TOKENS_TABLE! };
    const tokens = new DynamoTokenStore(options);
    const reports = new DynamoTokenReportStore(options);
    const orgId = 77;
    const now = stack.clock.now();
    const day = dayOf(now);
    const created = new Date(now).toISOString();
    const expires = new Date(now + DAY).toISOString();
    for (let batch = 0; batch < 10; batch++) {
      await Promise.all(
        Array.from({ length: 40 }, () =>
          tokens.put(
            {
              token: randomUUID(),
              org_id: orgId,
              key_id: 1,
              game_id: 101,
              stream_id: null,
              external_ref: null,
              metadata: null,
              player_ref: null,
              status: 'active',
              created_at: created,
              expires_at: expires,
            } satisfies TokenRecord,
            Math.ceil((now + 2 * DAY) / 1000),
          ),
        ),
      );
    }
    // 400 sessions, a report of at most 64: cut short, each partition's share (4) and never more.
    const { value, calls } = await recorder.measure(() => reports.tokensCreated(orgId, day, day, 64));
    expect(calls).toHaveLength(REPORT_SHARDS);
    expect(value.more).toBe(true);
    expect(value.records).toHaveLength(64);
    const perPartition = new Map<string, number>();
    for (const r of value.records)
      perPartition.set(reportPartition(orgId, r.token), (perPartition.get(reportPartition(orgId, r.token)) ?? 0) + 1);
    expect([...perPartition.values()]).toEqual(Array.from({ length: REPORT_SHARDS }, () => 64 / REPORT_SHARDS));
  });
});
