/**
 * The webhook tools through the SDK's own client: the key's org only, the REST rules (URL check,
 * secret answered once), the scopes (`mcp:connections:read` lists, `mcp:connections:write`
 * changes), each call audited with the endpoint.
 */
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { afterAll, beforeAll, describe, expect, test } from '@jest/globals';
import { adminApi, type AdminApi } from '../support/admin-api.js';
import { auditOfKey, createTestKey, UNLIMITED, type TestKey } from '../support/keys.js';
import { startStack, type Stack } from '../support/local-stack.js';
import { callTool, connectMcp, textOf } from '../support/mcp.js';
import { recordDeliveries, type RecordingQueue } from '../support/recording-queue.js';
import { stopAll } from '../support/teardown.js';

let stack: Stack;
let admin: AdminApi;
let writer: TestKey;
let client: Client;
let queue: RecordingQueue;
let restore: () => void;
const clients: Client[] = [];

beforeAll(async () => {
  stack = await startStack();
  admin = adminApi(stack);
  ({ queue, restore } = recordDeliveries(stack));
  writer = await createTestKey(stack, { ...UNLIMITED, mcp_scopes: ['mcp:connections:read', 'mcp:connections:write'] });
  client = await connectMcp(stack, writer.raw);
  clients.push(client);
});
afterAll(() =>
  stopAll(
    () => Promise.all(clients.map((c) => c.close())),
    async () => restore?.(),
    () => stack?.stop(),
  ),
);

describe('webhook tools', () => {
  test('create_webhook answers the secret once; list_webhooks and update_webhook never show it; audited with the endpoint', async () => {
    const created = await callTool(client, 'create_webhook', { url: 'https://partner.example/mcp', events: ['session.consumed'] });
    expect(created.isError).toBeFalsy();
    const data = created.structuredContent as Record<string, any>;
    expect(data).toMatchObject({
      org_id: 1,
      url: 'https://partner.example/mcp',
      events: ['session.consumed'],
      is_active: true,
      paused_at: null,
    });
    expect(data.secret).toMatch(/^whsec_/);
    expect(textOf(created)).toContain(data.secret);

    const listed = await callTool(client, 'list_webhooks');
    expect((listed.structuredContent as any).webhooks.some((w: any) => w.id === data.id)).toBe(true);
    expect(JSON.stringify(listed)).not.toContain('whsec_');
    // The REST list shows the endpoint made through MCP.
    expect((await admin.listWebhooks(1)).body.data.some((w: any) => w.id === data.id)).toBe(true);

    const paused = await callTool(client, 'update_webhook', { webhook_id: data.id, is_active: false, description: 'paused by agent' });
    expect(paused.structuredContent).toMatchObject({ id: data.id, is_active: false, description: 'paused by agent' });
    const pausedAt = (paused.structuredContent as any).paused_at;
    expect(pausedAt).toBe((paused.structuredContent as any).updated_at);
    expect((await admin.listWebhooks(1)).body.data.find((w: any) => w.id === data.id).paused_at).toBe(pausedAt);
    expect(JSON.stringify(paused)).not.toContain('whsec_');

    const audit = await auditOfKey(stack, writer.record.id);
    expect(audit.find((r) => r.action === 'mcp:tools/call:update_webhook')).toMatchObject({
      status: 200,
      webhook_id: data.id,
      changes: ['description', 'is_active'],
      diff: { description: { before: null, after: 'paused by agent' }, is_active: { before: true, after: false } },
    });
    expect(JSON.stringify(audit)).not.toContain('whsec_');
  });

  test('a refused URL is a tool error (audited 400); another org’s endpoint is not found', async () => {
    const refused = await callTool(client, 'create_webhook', { url: 'https://10.0.0.1/hook', events: ['*'] });
    expect(refused.isError).toBe(true);
    expect(textOf(refused)).toContain('a private address');
    // A name is resolved: `vm` is 127.0.0.1 (the test stacks' resolver), at create and at update.
    const byName = await callTool(client, 'create_webhook', { url: 'https://vm/hook', events: ['*'] });
    expect([byName.isError, textOf(byName)]).toEqual([true, 'url: vm resolves to a loopback address']);
    const mine = (await callTool(client, 'create_webhook', { url: 'https://partner.example/moved', events: ['*'] })).structuredContent!;
    const moved = await callTool(client, 'update_webhook', { webhook_id: mine.id as number, url: 'https://vm/hook' });
    expect([moved.isError, textOf(moved)]).toEqual([true, 'url: vm resolves to a loopback address']);
    const theirs = (await admin.createWebhook({ org_id: 2, url: 'https://globex.example/h', events: ['*'] }, 'globex-admin')).body.data.id;
    for (const [name, args] of [
      ['update_webhook', { webhook_id: theirs, description: 'x' }],
      ['delete_webhook', { webhook_id: theirs }],
      ['list_webhook_deliveries', { webhook_id: theirs }],
    ] as const) {
      const result = await callTool(client, name, args);
      expect([name, result.isError, textOf(result)]).toEqual([name, true, `Webhook ${theirs} not found in organization 1`]);
    }
    expect((await admin.listWebhooks(2, 'globex-admin')).body.data.some((w: any) => w.id === theirs)).toBe(true);
    const statuses = (await auditOfKey(stack, writer.record.id)).filter((r) => r.webhook_id === theirs).map((r) => r.status);
    expect(statuses).toEqual([404, 404, 404]);
  });

  test('list_webhook_deliveries and retry_webhook_delivery: a test event’s delivery, retried (queued again)', async () => {
    const id = (await callTool(client, 'create_webhook', { url: 'https://partner.example/retry', events: ['*'] })).structuredContent!
      .id as number;
    const delivery = (await admin.testWebhook({ id, org_id: 1 })).body.data.id as string;
    const page = await callTool(client, 'list_webhook_deliveries', { webhook_id: id, limit: 5 });
    expect((page.structuredContent as any).deliveries.map((d: any) => [d.id, d.event_type])).toEqual([[delivery, 'webhook.test']]);
    // Its first attempt is due (no worker runs here): a retry would add none.
    const early = await callTool(client, 'retry_webhook_delivery', { delivery_id: delivery });
    expect(early.isError).toBe(true);
    expect(textOf(early)).toContain('already has an attempt due or under way');
    // 15 minutes past due with no attempt: its message was lost, and a retry is accepted.
    stack.clock.advance(16 * 60_000);
    const sent = queue.messages.length;
    const retried = await callTool(client, 'retry_webhook_delivery', { delivery_id: delivery });
    expect(retried.structuredContent).toMatchObject({ id: delivery, status: 'pending' });
    expect(queue.messages.slice(sent)).toEqual([expect.objectContaining({ webhook_id: id, delivery_id: delivery, attempts: 0 })]);
    const unknown = await callTool(client, 'retry_webhook_delivery', { delivery_id: `msg_${id}_01JD8Y3W5Q7T0R6H1C2B3A4N5M` });
    expect(textOf(unknown)).toContain('not found');
  });

  test('recover_webhook_deliveries: refused while paused, a dry run counts; resumed, what was not received is queued as recovery messages; audited', async () => {
    const id = (await callTool(client, 'create_webhook', { url: 'https://partner.example/recover', events: ['*'] })).structuredContent!
      .id as number;
    const since = new Date(stack.clock.now() - 60_000).toISOString();
    // A delivery not yet received (no worker runs here: it stays pending).
    const delivery = (await admin.testWebhook({ id, org_id: 1 })).body.data.id as string;
    expect((await callTool(client, 'update_webhook', { webhook_id: id, is_active: false })).isError).toBeFalsy();

    const refused = await callTool(client, 'recover_webhook_deliveries', { webhook_id: id, since });
    expect(refused.isError).toBe(true);
    expect(textOf(refused)).toContain('paused');
    const counted = await callTool(client, 'recover_webhook_deliveries', { webhook_id: id, since, dry_run: true });
    expect(counted.structuredContent).toMatchObject({ webhook_id: id, since, dry_run: true, count: 1, next_since: null });
    expect(textOf(counted)).toContain('1 event(s)');

    expect((await callTool(client, 'update_webhook', { webhook_id: id, is_active: true })).isError).toBeFalsy();
    const sent = queue.messages.length;
    const recovered = await callTool(client, 'recover_webhook_deliveries', { webhook_id: id, since });
    expect(recovered.structuredContent).toMatchObject({ webhook_id: id, dry_run: false, count: 1, next_since: null });
    expect(queue.messages.slice(sent)).toEqual([
      expect.objectContaining({ webhook_id: id, delivery_id: delivery, attempts: 0, recover: true }),
    ]);

    const reversed = await callTool(client, 'recover_webhook_deliveries', { webhook_id: id, since, until: since });
    expect(reversed.isError).toBe(true);
    expect(textOf(reversed)).toContain('until must be later than since');
    const unknown = await callTool(client, 'recover_webhook_deliveries', { webhook_id: 999_999, since });
    expect(textOf(unknown)).toBe('Webhook 999999 not found in organization 1');
    const statuses = (await auditOfKey(stack, writer.record.id))
      .filter((r) => r.action === 'mcp:tools/call:recover_webhook_deliveries')
      .map((r) => r.status);
    expect(statuses).toEqual(expect.arrayContaining([409, 200, 200, 404]));
  });

  test('an admin’s endpoint read by a key with allow-lists: no payload over MCP (list, retry), where REST shows it; failing_since shown', async () => {
    const narrow = await createTestKey(stack, {
      ...UNLIMITED,
      mcp_scopes: ['mcp:connections:read', 'mcp:connections:write'],
      allowed_game_ids: [101],
    });
    const c = await connectMcp(stack, narrow.raw);
    clients.push(c);
    const id = (await admin.createWebhook({ org_id: 1, url: 'https://partner.example/admins', events: ['*'] })).body.data.id as number;
    const delivery = (await admin.testWebhook({ id, org_id: 1 })).body.data.id as string;
    // REST (owners and admins) shows the payload: the MCP answers below are not empty of it by chance.
    const rest = (await admin.listWebhookDeliveries({ org_id: 1, webhook_id: id })).body.data.deliveries[0];
    expect(rest.payload).toEqual({ type: 'webhook.test', timestamp: expect.any(String), data: { webhook_id: id } });

    const page = await callTool(c, 'list_webhook_deliveries', { webhook_id: id });
    expect(page.isError).toBeFalsy();
    const listed = (page.structuredContent as any).deliveries;
    expect(listed.map((d: any) => d.id)).toEqual([delivery]);
    const { payload: _payload, ...withoutPayload } = rest;
    expect(listed[0]).toEqual(withoutPayload);
    expect(JSON.stringify(page)).not.toContain('payload');

    stack.clock.advance(16 * 60_000);
    const retried = await callTool(c, 'retry_webhook_delivery', { delivery_id: delivery });
    expect(retried.structuredContent).toMatchObject({ id: delivery, status: 'pending' });
    expect(JSON.stringify(retried)).not.toContain('payload');

    const endpoints = (await callTool(c, 'list_webhooks')).structuredContent as any;
    expect(endpoints.webhooks.find((w: any) => w.id === id)).toMatchObject({ id, key_id: null, failing_since: null, paused_at: null });
  });

  test('delete_webhook removes it', async () => {
    const id = (await callTool(client, 'create_webhook', { url: 'https://partner.example/gone', events: ['*'] })).structuredContent!
      .id as number;
    expect((await callTool(client, 'delete_webhook', { webhook_id: id })).structuredContent).toEqual({ id, deleted: true });
    expect((await admin.listWebhooks(1)).body.data.some((w: any) => w.id === id)).toBe(false);
  });

  test('mcp:connections:read lists but may not change: the write tools are refused naming their scope', async () => {
    const reader = await createTestKey(stack, { ...UNLIMITED, mcp_scopes: ['mcp:connections:read'] });
    const c = await connectMcp(stack, reader.raw);
    clients.push(c);
    const names = (await c.listTools()).tools.map((t) => t.name);
    expect(names).toEqual(['list_webhooks', 'list_webhook_deliveries']);
    const refused = await callTool(c, 'create_webhook', { url: 'https://partner.example/no', events: ['*'] });
    expect(refused.isError).toBe(true);
    expect(textOf(refused)).toBe('create_webhook requires the MCP scope mcp:connections:write, which this API key does not have');
  });
});
