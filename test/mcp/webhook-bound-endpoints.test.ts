/**
 * An endpoint created through MCP is bound to its key (docs/decisions.md#endpoint-filters): a key
 * allowed only game 101 that registers a `*` endpoint hears game 101's sessions and its own key's
 * events, nothing else of its organization; the filter it asks for, at creation or by update, is
 * held within its allow-lists; it changes only its own endpoints; once its key is revoked, the
 * endpoint hears no more session events. End to end through the workers, on this tier's backend.
 */
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { afterAll, beforeAll, describe, expect, test } from '@jest/globals';
import { adminApi, type AdminApi } from '../support/admin-api.js';
import { auditOfKey, createTestKey, UNLIMITED, type TestKey } from '../support/keys.js';
import { startStack, type Stack } from '../support/local-stack.js';
import { callTool, connectMcp, textOf } from '../support/mcp.js';
import { sessionsApi } from '../support/sessions-api.js';
import { stopAll } from '../support/teardown.js';

let stack: Stack;
let admin: AdminApi;
let partner: TestKey;
let scoped: TestKey;
let client: Client;

beforeAll(async () => {
  stack = await startStack({ workers: true });
  admin = adminApi(stack);
  partner = await createTestKey(stack, UNLIMITED);
  scoped = await createTestKey(stack, {
    ...UNLIMITED,
    allowed_game_ids: [101],
    allowed_stream_ids: [],
    mcp_scopes: ['mcp:connections:read', 'mcp:connections:write'],
  });
  client = await connectMcp(stack, scoped.raw);
  // A stack with its workers, on a loaded machine (DynamoDB Local's start included), takes a while.
}, 120_000);
afterAll(() =>
  stopAll(
    () => client?.close(),
    () => stack?.stop(),
  ),
);

const api = () => sessionsApi(stack, () => partner.raw);

/** Consume a token of each target (minted by another, unscoped key); the tokens by target. */
async function consumeEach(...targets: Record<string, number>[]): Promise<string[]> {
  const tokens: string[] = [];
  for (const target of targets) {
    const token = await api().mint({ ...target, external_ref: `ref-${JSON.stringify(target)}` });
    expect((await api().consume({ token, player_uuid: 'player-1' })).status).toBe(200);
    tokens.push(token);
  }
  return tokens;
}

/**
 * What reached `/dev/webhooks/<name>`, oldest first, once every delivery so far had its attempt
 * (the control endpoint hears every event: more at once than its places, on a loaded machine):
 * type, and the token or key id.
 */
async function arrivedAt(name: string): Promise<{ type: string; about: unknown; webhook_id: string }[]> {
  await stack.settleDeliveries();
  return stack.devWebhooks
    .arrived()
    .filter((d) => d.path === `/dev/webhooks/${name}`)
    .reverse()
    .map((d) => {
      expect(d.verified).toBe(true);
      const event = JSON.parse(d.body) as { type: string; data: Record<string, unknown> };
      return { type: event.type, about: event.data.token ?? event.data.id ?? event.data.key_id, webhook_id: d.webhook_id! };
    });
}

/** The stored deliveries of an endpoint (admin's REST list): their ids and types. */
async function stored(webhookId: number): Promise<{ id: string; event_type: string }[]> {
  const res = await admin.listWebhookDeliveries({ org_id: 1, webhook_id: webhookId, limit: 100 });
  return (res.body.data.deliveries as any[]).map((d) => ({ id: d.id, event_type: d.event_type })).reverse();
}

describe('an endpoint created through MCP is bound to its key', () => {
  let bound: Record<string, any>;
  let control: number;

  test('a key allowed game 101 only registers ["*"]: it hears game 101’s session and its own key’s events, nothing else', async () => {
    const created = await callTool(client, 'create_webhook', { url: `${stack.baseUrl}/dev/webhooks/bound`, events: ['*'] });
    expect(created.isError).toBeFalsy();
    bound = created.structuredContent as Record<string, any>;
    expect(bound).toMatchObject({ events: ['*'], filter: { game_ids: [101], stream_ids: [] }, key_id: scoped.record.id });
    // An admin's endpoint beside it hears everything: the events below do happen.
    control = (await admin.createWebhook({ org_id: 1, url: `${stack.baseUrl}/dev/webhooks/control`, events: ['*'] })).body.data.id;

    const [game101, game102, stream201] = await consumeEach({ game_id: 101 }, { game_id: 102 }, { stream_id: 201 });
    const other = (await admin.create({ org_id: 1, name: 'other key', description: 'launch plans' })).body.data;
    expect((await admin.update({ id: other.id, org_id: 1, description: 'launch plans, v2' })).status).toBe(200);
    expect((await admin.update({ id: scoped.record.id, org_id: 1, description: 'the agent’s key' })).status).toBe(200);

    // Delivery is unordered: what arrived and what is stored are compared as sets.
    const heard = (await arrivedAt('bound')).sort((a, b) => a.type.localeCompare(b.type));
    expect(heard.map(({ type, about }) => ({ type, about }))).toEqual([
      { type: 'key.updated', about: scoped.record.id },
      { type: 'session.consumed', about: game101 },
    ]);
    expect(JSON.stringify(heard)).not.toContain('launch plans');
    const storedPairs = (await stored(bound.id)).map((d) => [d.id, d.event_type]);
    expect(storedPairs.sort()).toEqual(heard.map((d) => [d.webhook_id, d.type]).sort());

    const all = (await arrivedAt('control')).map(({ type, about }) => `${type} ${about}`);
    expect(all).toEqual(
      expect.arrayContaining([
        `session.consumed ${game101}`,
        `session.consumed ${game102}`,
        `session.consumed ${stream201}`,
        `key.created ${other.id}`,
        `key.updated ${other.id}`,
        `key.updated ${scoped.record.id}`,
      ]),
    );
  }, 120_000);

  test('list_webhooks and the REST list show the filter and the key it is bound to', async () => {
    const listed = ((await callTool(client, 'list_webhooks')).structuredContent as any).webhooks.find((w: any) => w.id === bound.id);
    expect(listed).toMatchObject({ filter: { game_ids: [101], stream_ids: [] }, key_id: scoped.record.id });
    const rest = ((await admin.listWebhooks(1)).body.data as any[]).find((w) => w.id === bound.id);
    expect(rest).toMatchObject({ filter: { game_ids: [101], stream_ids: [] }, key_id: scoped.record.id });
  });

  test('a filter asked for is held within the key’s allow-lists, at create and at update (audited with its diff)', async () => {
    const narrow = await callTool(client, 'create_webhook', {
      url: 'https://partner.example/narrow',
      events: ['session.consumed'],
      filter: { game_ids: [101, 102], stream_ids: [201] },
    });
    expect(narrow.structuredContent).toMatchObject({ filter: { game_ids: [101], stream_ids: [] } });

    const widened = await callTool(client, 'update_webhook', { webhook_id: bound.id, filter: null });
    expect(widened.structuredContent).toMatchObject({ filter: { game_ids: [101], stream_ids: [] } });
    const none = await callTool(client, 'update_webhook', { webhook_id: bound.id, filter: { game_ids: [102] } });
    expect(none.structuredContent).toMatchObject({ filter: { game_ids: [], stream_ids: [] } });
    const audit = (await auditOfKey(stack, scoped.record.id)).filter(
      (r) => r.action === 'mcp:tools/call:update_webhook' && r.webhook_id === bound.id,
    );
    expect(audit.at(-1)).toMatchObject({
      status: 200,
      changes: ['filter'],
      diff: { 'filter.game_ids': { before: [101], after: [] } },
    });
    const [game101] = await consumeEach({ game_id: 101 });
    expect((await arrivedAt('bound')).some((d) => d.about === game101)).toBe(false);
    expect((await callTool(client, 'update_webhook', { webhook_id: bound.id, filter: { game_ids: [101] } })).isError).toBeFalsy();
  });

  test('a bad filter is a tool error naming the field', async () => {
    const refused = await callTool(client, 'create_webhook', {
      url: 'https://partner.example/bad',
      events: ['*'],
      filter: { game_ids: [0] },
    });
    expect(refused.isError).toBe(true);
    expect(textOf(refused)).toContain('filter');
  });

  test('the key changes or deletes only its own endpoints: an admin’s is refused', async () => {
    for (const [name, args] of [
      ['update_webhook', { webhook_id: control, url: `${stack.baseUrl}/dev/webhooks/stolen` }],
      ['delete_webhook', { webhook_id: control }],
    ] as const) {
      const result = await callTool(client, name, args);
      expect([name, result.isError, textOf(result)]).toEqual([
        name,
        true,
        `Webhook ${control} was not created with this API key: only an organization admin can change or delete it`,
      ]);
    }
    const statuses = (await auditOfKey(stack, scoped.record.id)).filter((r) => r.webhook_id === control).map((r) => r.status);
    expect(statuses).toEqual([403, 403]);
    const still = ((await admin.listWebhooks(1)).body.data as any[]).find((w) => w.id === control);
    expect(still.url).toBe(`${stack.baseUrl}/dev/webhooks/control`);
  });

  test('once its key is revoked, the endpoint hears that, and no session event after it', async () => {
    const before = (await arrivedAt('bound')).length;
    expect((await admin.update({ id: scoped.record.id, org_id: 1, is_active: false })).status).toBe(200);
    const [game101] = await consumeEach({ game_id: 101 });
    const after = (await arrivedAt('bound')).slice(before);
    expect(after.map(({ type, about }) => ({ type, about }))).toEqual([{ type: 'key.updated', about: scoped.record.id }]);
    expect((await arrivedAt('control')).some((d) => d.about === game101)).toBe(true);
  });

  test('once its key is deleted, the endpoint hears key.deleted of it, and still no session event', async () => {
    const before = (await arrivedAt('bound')).length;
    expect((await admin.remove(scoped.record.id, 1)).status).toBe(200);
    const [game101] = await consumeEach({ game_id: 101 });
    const after = (await arrivedAt('bound')).slice(before);
    expect(after.map(({ type, about }) => ({ type, about }))).toEqual([{ type: 'key.deleted', about: scoped.record.id }]);
    expect((await arrivedAt('control')).some((d) => d.about === game101)).toBe(true);
    expect((await stored(bound.id)).map((d) => d.event_type).slice(-2)).toEqual(['key.updated', 'key.deleted']);
  });
});
