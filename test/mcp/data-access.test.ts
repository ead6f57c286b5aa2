/**
 * What the MCP function does to DynamoDB: its routes-table `data` is exact (every action used is
 * declared, every declared one is used: it becomes the function's IAM policy), and its requests keep
 * the sequential round trips of REST — create_session of a key the server has read valid is one
 * stage (key read, counters, token and audit together), reports add nothing to create or consume.
 */
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, describe, expect, test } from '@jest/globals';
import { routes } from '../../shared/routes.js';
import { adminApi } from '../support/admin-api.js';
import type { DataAccess } from '../../shared/platform/route.js';
import { AUDIT_SHARDS } from '../../shared/audit/audit-store.js';
import { REPORT_SHARDS } from '../../shared/sessions/token-store.js';
import { createTestKey, putKeyRecord, startOfNextMinute, UNLIMITED, type TestKey } from '../support/keys.js';
import { startStack, type Stack } from '../support/local-stack.js';
import { callTool, connectMcp, postMcp, TOOL_SCOPES } from '../support/mcp.js';
import { describeStages, RoundTripRecorder, stageCount, type RoundTrip } from '../support/round-trips.js';
import { logicalTableName } from '../../infra/local/table-names.js';
import { sessionsApi } from '../support/sessions-api.js';
import { stopAll } from '../support/teardown.js';
import { recordDeliveries } from '../support/recording-queue.js';

let stack: Stack;
let key: TestKey;
let client: Client;
const recorder = new RoundTripRecorder();
/** Every `table:Action` the MCP function performed in this file. */
const used = new Set<string>();

beforeAll(async () => {
  // Its recorder sees every call of the service's client: the workers' are not this request's.
  stack = await startStack({ workers: false });
  recorder.attach(stack.services.client);
  key = await createTestKey(stack, { ...UNLIMITED, mcp_scopes: TOOL_SCOPES });
  startOfNextMinute(stack);
  client = await connectMcp(stack, key.raw);
});
// Each step runs even when the one before fails (or never started): no server outlives the file.
afterAll(() =>
  stopAll(
    () => client?.close(),
    () => stack?.stop(),
  ),
);

/** Run one MCP request and record what it did (also when it fails: compensations count too). */
async function traced<T>(work: () => Promise<T>): Promise<{ value: T; calls: RoundTrip[] }> {
  const { value, calls } = await recorder.measure(() =>
    work().then(
      (ok) => ({ ok }),
      (error: unknown) => ({ error }),
    ),
  );
  for (const call of calls) for (const action of actionsOf(call)) used.add(action);
  if ('error' in value) throw value.error;
  return { value: value.ok, calls };
}

/** A transaction's item kinds, as IAM names their actions. */
const TRANSACT_ACTION: Record<string, string> = {
  Put: 'PutItem',
  Update: 'UpdateItem',
  Delete: 'DeleteItem',
  ConditionCheck: 'ConditionCheckItem',
};

/** `table:Action` of a call, as IAM allows it: a transaction's items one by one (the webhook tools' create and delete). */
function actionsOf(call: RoundTrip): string[] {
  const items = call.input.TransactItems as Record<string, { TableName: string }>[] | undefined;
  if (!items) return [`${tableOf(call)}:${call.action}`];
  return items.flatMap((item) => Object.entries(item).map(([kind, op]) => `${logicalTableName(op.TableName)}:${TRANSACT_ACTION[kind]}`));
}

/** The table of a call; a batch names its table in `RequestItems`. */
function tableOf(call: RoundTrip): string {
  return (
    call.table ??
    Object.keys((call.input.RequestItems as Record<string, unknown> | undefined) ?? {})
      .map(logicalTableName)
      .join(',')
  );
}

const tool = (name: string, args: Record<string, unknown> = {}, c: Client = client) => traced(() => callTool(c, name, args));
const ok = (result: CallToolResult) => expect(result.isError).toBeFalsy();

describe('sequential round trips', () => {
  test('create_session of a key this container read valid: the key read, counters, token and audit together (1)', async () => {
    ok((await tool('create_session', { game_id: 101 })).value);
    const { value, calls } = await tool('create_session', { game_id: 101 });
    ok(value);
    expect(stageCount(calls)).toBe(1);
    // (The game is cached since the first call.)
    expect(describeStages(calls)).toBe('GetItem keys + UpdateItem counters + PutItem tokens + PutItem audit');
    // The mint's audit record (written anyway) keeps the token for the report: no index write, no extra call.
    const put = calls.find((c) => c.action === 'PutItem' && c.table === 'audit')!;
    const minted = calls.find((c) => c.action === 'PutItem' && c.table === 'tokens')!;
    expect((put.input.Item as Record<string, unknown>).minted_token).toBe((minted.input.Item as Record<string, unknown>).token);
  });

  test('consuming an MCP-minted session is still one conditional write', async () => {
    const mint = async () => ((await callTool(client, 'create_session', { game_id: 101 })).structuredContent as { token: string }).token;
    const rest = sessionsApi(stack, () => key.raw);
    // The first consumption of a container reserves a block of session ids: warm up first.
    expect((await rest.consume({ token: await mint() })).status).toBe(200);
    const token = await mint();
    const { value, calls } = await recorder.measure(() => rest.consume({ token }));
    expect(value.status).toBe(200);
    expect(describeStages(calls)).toBe('UpdateItem tokens');
  });

  test.each([
    ['tools/list', () => traced(() => client.listTools())],
    ['list_games', () => tool('list_games')],
    ['get_stream', () => tool('get_stream', { stream_id: 201 })],
  ])('%s: the key read, then the metered stage with its effect (2)', async (_name, run) => {
    const { calls } = await run();
    expect(stageCount(calls)).toBe(2);
    expect(describeStages(calls)).toMatch(/^GetItem keys \| /);
  });

  // A token or a game is a shared item: the call is counted (with its audit record) before it is written.
  test.each([
    [
      'revoke_session',
      'UpdateItem tokens',
      async () => {
        const token = ((await callTool(client, 'create_session', { game_id: 101 })).structuredContent as { token: string }).token;
        return tool('revoke_session', { token });
      },
    ],
    ['update_game', 'UpdateItem catalog', () => tool('update_game', { game_id: 102, name: 'Acme Memory (open)' })],
  ])('%s: the key read, the count with its audit record, then the write of the shared item (3)', async (name, write, run) => {
    const { calls } = await run();
    // update_game reads the game alongside the key (its before values for the audit record): no stage more.
    const first = name === 'update_game' ? 'GetItem catalog \\+ GetItem keys|GetItem keys \\+ GetItem catalog' : 'GetItem keys';
    expect(describeStages(calls)).toMatch(new RegExp(`^(${first}) \\| UpdateItem counters \\+ PutItem audit \\| ${write}$`));
    expect(stageCount(calls)).toBe(3);
  });

  test("get_session_report: the key read, then the org's report budget beside the metering, then the report index and the rollup", async () => {
    // A mint of its own, so that today has one even when the run crossed midnight UTC since the others.
    ok((await tool('create_session', { game_id: 101 })).value);
    const today = new Date(stack.clock.now()).toISOString().slice(0, 10);
    const { value, calls } = await tool('get_session_report', { from: today, to: today });
    expect((value.structuredContent as { totals: { created: number } }).totals.created).toBeGreaterThan(0);
    expect(describeStages(calls)).toMatch(/^GetItem keys \| .*Query audit/);
    // One query per partition of the tokens' report index and of the usage rollup, and no token read by itself.
    expect(calls.filter((c) => c.action === 'Query' && c.table === 'tokens')).toHaveLength(REPORT_SHARDS);
    expect(calls.filter((c) => c.action === 'Query' && c.table === 'audit')).toHaveLength(AUDIT_SHARDS);
    expect(calls.filter((c) => c.action === 'BatchGetItem')).toHaveLength(0);
    expect(stageCount(calls)).toBeLessThanOrEqual(3);
  });
});

describe('webhook tools', () => {
  test('list, create, update, deliveries, retry, delete: the key read, then the metered stage with its effect', async () => {
    const recording = recordDeliveries(stack);
    try {
      const listed = await tool('list_webhooks');
      ok(listed.value);
      expect(describeStages(listed.calls)).toMatch(/^GetItem keys \| /);
      const created = await tool('create_webhook', { url: 'https://partner.example/mcp', events: ['*'] });
      ok(created.value);
      const id = (created.value.structuredContent as { id: number }).id;
      ok((await tool('update_webhook', { webhook_id: id, description: 'via MCP' })).value);
      // A delivery to retry: a test event's (REST), queued to the recording queue.
      const admin = adminApi(stack);
      const delivery = (await admin.testWebhook({ id, org_id: 1 })).body.data.id as string;
      const page = await tool('list_webhook_deliveries', { webhook_id: id });
      ok(page.value);
      expect(stageCount(page.calls)).toBe(2);
      // Its message stays in the recording queue, never attempted: due for more than 15 minutes, it
      // counts as lost and may be retried (docs/decisions.md#webhook-hand-sends).
      stack.clock.advance(16 * 60_000);
      const retried = await tool('retry_webhook_delivery', { delivery_id: delivery }).finally(() => stack.clock.advance(-16 * 60_000));
      ok(retried.value);
      expect(recording.queue.messages.map((m) => m.delivery_id)).toEqual([delivery, delivery]);
      ok((await tool('delete_webhook', { webhook_id: id })).value);
    } finally {
      recording.restore();
    }
  });
});

describe('data access of the mcp row of the routes table', () => {
  test('refusal and compensation paths use only declared actions', async () => {
    // Another org's token: the refused revoke returns the token with it, and "not found" needs no read.
    const globex = await createTestKey(stack, UNLIMITED, { org_id: 2, tier: 'enterprise' });
    const theirs = await sessionsApi(stack, () => globex.raw).mint({ game_id: 301 });
    const refused = await tool('revoke_session', { token: theirs });
    expect(refused.value.isError).toBe(true);
    expect(refused.calls.filter((c) => c.action === 'GetItem' && c.table === 'tokens')).toEqual([]);
    // A key with an allow-list reads the token before revoking it: its scope decides first.
    const narrow = await createTestKey(stack, { ...UNLIMITED, mcp_scopes: TOOL_SCOPES, allowed_game_ids: [101] });
    const n = await connectMcp(stack, narrow.raw);
    const mine = ((await callTool(n, 'create_session', { game_id: 101 })).structuredContent as { token: string }).token;
    const revoked = await tool('revoke_session', { token: mine }, n);
    ok(revoked.value);
    expect(revoked.calls.filter((c) => c.table === 'tokens').map((c) => c.action)).toEqual(['GetItem', 'UpdateItem']);
    await n.close();
    // A rate-limited create_session: the token written alongside the counters is deleted again.
    const limited = await createTestKey(stack, { rate_limit_per_minute: 3, mcp_scopes: TOOL_SCOPES });
    startOfNextMinute(stack);
    // Its first request of the minute also stamps the key's last_used_at.
    const { value: c } = await traced(() => connectMcp(stack, limited.raw));
    ok((await tool('create_session', { game_id: 101 }, c)).value);
    await expect(tool('create_session', { game_id: 101 }, c)).rejects.toMatchObject({ code: 429 });
    expect(used).toContain('tokens:DeleteItem');
    await c.close();
    // The audited 429 is counted in the usage rollup; a report reads the rollup and the report index.
    expect(used).toContain('audit:UpdateItem');
    const today = new Date(stack.clock.now()).toISOString().slice(0, 10);
    ok((await tool('get_session_report', { from: today, to: today })).value);
    expect(used).toContain('audit:Query');
    expect(used).toContain('tokens:Query');
  });

  test('create_session with an Idempotency-Key: claim, store, replay (re-addressed to the new id), an unknown key writes nothing', async () => {
    const call = (id: number, args: Record<string, unknown>, apiKey = key.raw, idempotencyKey = 'mcp-retry-1') =>
      traced(() =>
        postMcp(
          stack,
          { jsonrpc: '2.0', id, method: 'tools/call', params: { name: 'create_session', arguments: args } },
          { 'x-api-key': apiKey, 'idempotency-key': idempotencyKey },
        ),
      );
    // Both games read now, so that this container's catalog cache (PLAYABLE_CACHE_MS) holds them
    // however long the file took so far: the stages below are the key's and the claim's alone.
    for (const game_id of [101, 102]) ok((await tool('create_session', { game_id })).value);
    const first = await call(1, { game_id: 101 });
    expect(first.value.status).toBe(200);
    // The claim beside the key read, the count, token and audit; then the answer stored.
    expect(stageCount(first.calls)).toBe(2);
    const token = first.value.body.result.structuredContent.token as string;
    const replay = await call(2, { game_id: 101 });
    expect(replay.value.headers.get('idempotent-replayed')).toBe('true');
    expect(replay.value.body).toMatchObject({ id: 2, result: { structuredContent: { token } } });
    // What went out beside the refused claim is taken back: no second token, count or audit record.
    const writes = (table: string) => replay.calls.filter((c) => c.table === table).map((c) => c.action);
    expect([writes('tokens'), writes('counters'), writes('audit')]).toEqual([
      ['PutItem', 'DeleteItem'],
      ['UpdateItem', 'UpdateItem'],
      ['PutItem', 'DeleteItem'],
    ]);
    // Another body: 422, counted and audited as the tool's call (docs/api.md#idempotent-retries).
    const other = await call(3, { game_id: 102 });
    expect(other.value.status).toBe(422);
    // Counted with the claim; its token deleted and its audit record rewritten with the 422.
    expect(describeStages(other.calls)).toMatch(/^[^|]*UpdateItem counters[^|]*\| DeleteItem tokens \+ PutItem audit$/);
    // A well-formed key that is unknown: 401, reads only (the key, the game unless cached), nothing
    // written: its claim waits for authentication.
    const unknown = await call(4, { game_id: 101 }, `dpk_${'0'.repeat(40)}`);
    expect(unknown.value.status).toBe(401);
    expect(unknown.calls.filter((c) => c.action !== 'GetItem' || c.table === 'idempotency')).toEqual([]);
    // A key revoked since this container saw it valid: its one claim is written and deleted again.
    const revoked = await createTestKey(stack, { ...UNLIMITED, mcp_scopes: TOOL_SCOPES });
    expect((await call(5, { game_id: 101 }, revoked.raw)).value.status).toBe(200);
    await putKeyRecord(stack, { ...revoked.record, is_active: false });
    const once = await call(6, { game_id: 101 }, revoked.raw, 'mcp-retry-2');
    expect(once.value.status).toBe(401);
    expect(once.calls.filter((c) => c.table === 'idempotency').map((c) => c.action)).toEqual(['PutItem', 'DeleteItem']);
  });

  test("create_session after a limit change: the first call hands over to the day's new counter layout (its put)", async () => {
    const changed = await createTestKey(stack, { ...UNLIMITED, mcp_scopes: TOOL_SCOPES });
    const c = await connectMcp(stack, changed.raw);
    ok((await tool('create_session', { game_id: 101 }, c)).value);
    // The limits changed now (as update-key records it: CounterLayouts in shared/keys/rate-limit.ts).
    const now = new Date(stack.clock.now()).toISOString();
    await putKeyRecord(stack, {
      ...changed.record,
      rate_limit_per_minute: changed.record.rate_limit_per_minute - 1,
      limits_version: 1,
      limits_changed_at: now,
    });
    const { value, calls } = await tool('create_session', { game_id: 101 }, c);
    ok(value);
    expect(calls.map((call) => `${call.table}:${call.action}`)).toContain('counters:PutItem');
    await c.close();
  });

  test('every action used is declared, and every declared action is used (no spare permissions)', () => {
    const data = routes.find((r) => r.operation === 'mcp')!.data as DataAccess;
    const declared = Object.entries(data).flatMap(([table, actions]) => (actions ?? []).map((a) => `${table}:${a}`));
    expect([...used].sort()).toEqual(declared.sort());
  });
});
