/**
 * The event sources end to end, on the backend this tier runs (dynalite's stand-in of streams, or
 * DynamoDB Local's own streams): real operations through the service, their stream records through
 * the local streams to the `webhook-events` handler, and the due sweep (`webhook-due`) at a later
 * time. The events are recorded where the fan-out would take them; each step's are the exact list
 * below, so both tiers assert the same list.
 */
import { afterAll, beforeAll, describe, expect, test } from '@jest/globals';
import { LocalStreamFailures } from '../../infra/local/stream-failures.js';
import { startStreams, type LocalStreams } from '../../infra/local/streams/index.js';
import { DynamoDueStore } from '../../shared/webhooks/due-store.js';
import { DynamoTokenReads } from '../../shared/webhooks/event-services.js';
import type { SourcedEvent } from '../../shared/webhooks/delivery-model.js';
import { webhookDueHandler } from '../../shared/webhooks/workers/webhook-due.js';
import { webhookEventsHandler } from '../../shared/webhooks/workers/webhook-events.js';
import { adminApi, type AdminApi } from '../support/admin-api.js';
import { createTestKey, startOfNextMinute, UNLIMITED, type TestKey } from '../support/keys.js';
import { startStack, type Stack } from '../support/local-stack.js';
import { sessionsApi } from '../support/sessions-api.js';

let stack: Stack;
let admin: AdminApi;
let streams: LocalStreams;
let partner: TestKey;
let sweep: () => Promise<void>;
const published: SourcedEvent[] = [];
const failures = new LocalStreamFailures();

beforeAll(async () => {
  // Its own streams record the events; the stack's workers would deliver them too.
  stack = await startStack({ workers: false });
  admin = adminApi(stack);
  const { client } = stack.services;
  const names = stack.tableNames;
  const sink = { publish: async (events: readonly SourcedEvent[]) => void published.push(...events) };
  const deps = {
    sink,
    due: new DynamoDueStore({ client, tableName: names.webhooks }),
    webhooks: stack.services.stores.webhooks,
    keys: stack.services.stores.keys,
    tokens: new DynamoTokenReads({ client, tableName: names.tokens }),
    streamedTables: { tokens: names.tokens, keys: names.keys, counters: names.counters },
    clock: stack.clock,
    unreadable: failures,
  };
  streams = await startStreams({
    backend: stack.dynamoBackend,
    connection: stack.dynamoConnection,
    tableNames: names,
    onRecords: webhookEventsHandler(() => deps),
    failures,
    pollIntervalMs: 50,
  });
  sweep = webhookDueHandler(() => deps);
  // Org 1 wants every event, so its new tokens get their session.expired due items.
  expect((await admin.createWebhook({ org_id: 1, url: 'http://localhost:9/hook', events: ['*'] })).status).toBe(200);
  partner = await createTestKey(stack, UNLIMITED);
}, 60_000);
afterAll(async () => {
  await streams?.close();
  await stack?.stop();
});

/** What the step's writes published, once their records are read: type, org, and what tells the events apart. */
async function step(run: () => Promise<unknown>): Promise<unknown[]> {
  await streams.settle();
  published.length = 0;
  const reply = await run();
  // An admin call's reply: it must have been the success the step expects.
  if (reply && typeof reply === 'object' && 'status' in reply) expect(reply.status).toBe(200);
  await streams.settle();
  return published.map(({ org_id, source_id, event }) => {
    expect(source_id).toEqual(expect.any(String));
    const data = event.data as Record<string, unknown>;
    const about = 'actor' in data ? { id: data.id, actor: data.actor, is_active: data.is_active, name: data.name } : data;
    return { type: event.type, org_id, ...about };
  });
}

describe(`webhook events from the streams, on ${process.env.DYNAMODB_BACKEND === 'local' ? 'DynamoDB Local' : 'dynalite'}`, () => {
  test('key administration: created, updated (settings, revocation, reactivation), rotated, deleted, each with its actor', async () => {
    let id = 0;
    expect(
      await step(async () => {
        const created = await admin.create({ org_id: 1, name: 'events' });
        id = created.body.data.id;
      }),
    ).toEqual([{ type: 'key.created', org_id: 1, id, actor: 'acme-admin', is_active: true, name: 'events' }]);
    expect(await step(() => admin.update({ id, org_id: 1, name: 'renamed' }))).toEqual([
      { type: 'key.updated', org_id: 1, id, actor: 'acme-admin', is_active: true, name: 'renamed' },
    ]);
    expect(await step(() => admin.update({ id, org_id: 1, is_active: false }))).toEqual([
      { type: 'key.updated', org_id: 1, id, actor: 'acme-admin', is_active: false, name: 'renamed' },
    ]);
    expect(await step(() => admin.update({ id, org_id: 1, is_active: true }))).toEqual([
      { type: 'key.updated', org_id: 1, id, actor: 'acme-admin', is_active: true, name: 'renamed' },
    ]);
    let successor = 0;
    // The rotation's new key says nothing of its own: the retired key's change is the event.
    expect(
      await step(async () => {
        const rotated = await admin.rotate({ id, org_id: 1, grace_period_minutes: 5 });
        expect(rotated.status).toBe(200);
        successor = rotated.body.data.id;
      }),
    ).toEqual([{ type: 'key.rotated', org_id: 1, id, actor: 'acme-admin', is_active: true, name: 'renamed' }]);
    expect(await step(() => admin.remove(successor, 1))).toEqual([
      { type: 'key.deleted', org_id: 1, id: successor, actor: 'acme-admin', is_active: true, name: 'renamed' },
    ]);
    // A refused change writes nothing: no event.
    expect(await step(async () => expect((await admin.remove(successor, 1)).status).toBe(404))).toEqual([]);
  });

  test('sessions: consumed and revoked once each; a refused consume and a use stamp say nothing', async () => {
    const api = sessionsApi(stack, () => partner.raw);
    let consumed = '';
    expect(await step(async () => (consumed = await api.mint({ game_id: 101, external_ref: 'order-1' })))).toEqual([]);
    expect(await step(async () => expect((await api.consume({ token: consumed })).status).toBe(200))).toEqual([
      expect.objectContaining({ type: 'session.consumed', org_id: 1, token: consumed, external_ref: 'order-1', key_id: partner.record.id }),
    ]);
    expect(await step(async () => expect((await api.consume({ token: consumed })).status).toBe(410))).toEqual([]);
    const revoked = await api.mint();
    expect(await step(async () => expect((await api.revoke({ token: revoked })).status).toBe(200))).toEqual([
      expect.objectContaining({ type: 'session.revoked', org_id: 1, token: revoked, key_id: partner.record.id }),
    ]);
    expect(await step(async () => expect((await api.revoke({ token: revoked })).status).toBe(410))).toEqual([]);
  });

  test('a bound token: refused players say nothing; its player’s consume is session.consumed with player_ref (null when unbound)', async () => {
    const api = sessionsApi(stack, () => partner.raw);
    let bound = '';
    expect(await step(async () => (bound = await api.mint({ stream_id: 201, player_ref: 'player-a' })))).toEqual([]);
    expect(await step(async () => expect((await api.consume({ token: bound, player_uuid: 'player-b' })).status).toBe(403))).toEqual([]);
    expect(await step(async () => expect((await api.consume({ token: bound })).status).toBe(403))).toEqual([]);
    expect(await step(async () => expect((await api.consume({ token: bound, player_uuid: 'player-a' })).status).toBe(200))).toEqual([
      expect.objectContaining({ type: 'session.consumed', token: bound, player_uuid: 'player-a', player_ref: 'player-a' }),
    ]);
    const unbound = await api.mint({ game_id: 101 });
    expect(await step(async () => expect((await api.consume({ token: unbound, player_uuid: 'anyone' })).status).toBe(200))).toEqual([
      expect.objectContaining({ type: 'session.consumed', token: unbound, player_uuid: 'anyone', player_ref: null }),
    ]);
  });

  test('a key over its minute limit: key.rate_limited once for the window, however many refusals', async () => {
    const limited = await createTestKey(stack, { rate_limit_per_minute: 1 });
    const api = sessionsApi(stack, () => limited.raw);
    startOfNextMinute(stack);
    expect(await step(async () => expect((await api.create({ game_id: 101 })).status).toBe(200))).toEqual([]);
    const events = await step(async () => {
      for (let i = 0; i < 3; i++) expect((await api.create({ game_id: 101 })).status).toBe(429);
    });
    const minute = Math.floor(stack.clock.now() / 60_000) * 60_000;
    expect(events).toEqual([
      {
        type: 'key.rate_limited',
        org_id: 1,
        key_id: limited.record.id,
        window: 'minute',
        limit: 1,
        resets_at: new Date(minute + 60_000).toISOString(),
      },
    ]);
  });

  test('the due sweep: session.expired for a token left to expire, never for one consumed or revoked', async () => {
    const api = sessionsApi(stack, () => partner.raw);
    const left = await api.mint({ game_id: 101, expires_in_minutes: 1 });
    const consumed = await api.mint({ game_id: 101, expires_in_minutes: 1 });
    const revoked = await api.mint({ game_id: 101, expires_in_minutes: 1 });
    await step(async () => {
      expect((await api.consume({ token: consumed })).status).toBe(200);
      expect((await api.revoke({ token: revoked })).status).toBe(200);
    });
    // Not yet: nothing is due.
    expect(await step(() => sweep())).toEqual([]);
    stack.clock.advance(90_000);
    expect(await step(() => sweep())).toEqual([expect.objectContaining({ type: 'session.expired', org_id: 1, token: left })]);
    // Done with: a second sweep finds nothing.
    expect(await step(() => sweep())).toEqual([]);
  });
});
