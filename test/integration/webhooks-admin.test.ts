/**
 * Webhook endpoints as org resources over HTTP (their management): create, list,
 * update, delete and rotate-webhook-secret, each with its refusals (roles, tier, URL, unknown
 * endpoint, the 20-endpoint maximum); the secret shown only by create and rotate and stored sealed
 * (the raw item holds no `whsec_`), verifiable with the stock `standardwebhooks` library.
 */
import { afterAll, beforeAll, describe, expect, test } from '@jest/globals';
import { GetCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import type { SQSEvent } from 'aws-lambda';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Webhook } from 'standardwebhooks';
import { sortableId } from '../../shared/platform/dynamo/client.js';
import { AesGcmSealer, sealingContext } from '../../shared/webhooks/secret-sealer.js';
import { deliveryHeaders } from '../../shared/webhooks/signing.js';
import { handler as deliveryWorker } from '../../shared/webhooks/workers/webhook-delivery.js';
import { describeWithStack } from '../support/describe-with-stack.js';
import { recordDeliveries } from '../support/recording-queue.js';

const VIEW_FIELDS = [
  'created_at',
  'description',
  'events',
  'failing_since',
  'filter',
  'id',
  'is_active',
  'key_id',
  'org_id',
  'paused_at',
  'updated_at',
  'url',
];
const ISO = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;
const URL_OK = 'https://partner.example/hooks/gsts';

describeWithStack('webhook endpoints over HTTP', ({ stack, admin }) => {
  beforeAll(async () => {
    const { catalog } = stack.services.stores;
    await Promise.all([
      catalog.putMember(1, 'acme-owner', 'owner'),
      catalog.putMember(1, 'acme-analyst', 'analyst'),
      catalog.putOrg({ org_id: 8, slug: 'full', name: 'Full Studio', tier: 'business' }),
      catalog.putMember(8, 'full-admin', 'admin'),
    ]);
  });

  const create = async (body: Record<string, unknown> = {}, as?: string) => {
    const res = await admin.createWebhook({ org_id: 1, url: URL_OK, events: ['session.consumed'], ...body }, as);
    expect(res.status).toBe(200);
    return res.body.data as Record<string, any>;
  };
  const rawItem = async (orgId: number, id: number) =>
    (
      await stack.services.client.send(
        new GetCommand({ TableName: stack.tableNames.catalog, Key: { pk: `ORG#${orgId}`, sk: `WEBHOOK#${sortableId(id)}` } }),
      )
    ).Item!;
  const sealer = () => new AesGcmSealer(() => process.env.WEBHOOK_SECRET_KEY!);
  const listed = async (id: number) => ((await admin.listWebhooks(1)).body.data as any[]).find((w) => w.id === id);
  const auditRecords = async (action: string) =>
    ((await admin.audit({ org_id: 1 })).body.data.records as any[]).filter((r) => r.action === action);

  describe('create-webhook', () => {
    test('answers the endpoint and its secret once; the secret verifies with standardwebhooks', async () => {
      const data = await create({ description: 'Orders', events: ['session.consumed', 'key.rate_limited'] });
      expect(Object.keys(data).sort()).toEqual([...VIEW_FIELDS, 'secret'].sort());
      expect(data).toMatchObject({
        org_id: 1,
        url: URL_OK,
        events: ['session.consumed', 'key.rate_limited'],
        description: 'Orders',
        is_active: true,
      });
      expect(data.created_at).toMatch(ISO);
      expect(data.secret).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);

      const body = JSON.stringify({ type: 'webhook.test', timestamp: new Date().toISOString(), data: { webhook_id: data.id } });
      const headers = deliveryHeaders({ id: 'msg_1', timestampSeconds: Math.floor(Date.now() / 1000), body, secrets: [data.secret] });
      expect(new Webhook(data.secret).verify(body, { ...headers })).toEqual(JSON.parse(body));
    });

    test('stores the secret sealed: no whsec_ nor its key in the raw item, and it opens only for its own endpoint', async () => {
      const data = await create();
      const item = await rawItem(1, data.id);
      const text = JSON.stringify(item);
      expect(text).not.toContain('whsec_');
      expect(text).not.toContain(data.secret.slice(6));
      expect(item.secret_sealed).toMatch(/^v1\./);
      expect(sealer().open(item.secret_sealed, sealingContext(1, data.id))).toBe(data.secret);
      expect(() => sealer().open(item.secret_sealed, sealingContext(1, data.id + 1))).toThrow('did not open');
      expect(() => new AesGcmSealer(() => 'x'.repeat(43)).open(item.secret_sealed, sealingContext(1, data.id))).toThrow('did not open');
    });

    test('ids are distinct and increasing; ["*"] subscribes to every type; description defaults to null', async () => {
      const a = await create({ events: ['*'] });
      const b = await create();
      expect(b.id).toBeGreaterThan(a.id);
      expect(a.events).toEqual(['*']);
      expect(a.description).toBeNull();
      expect(a.secret).not.toBe(b.secret);
    });

    test.each([
      ['http://partner.example/hook', 'must use https'],
      ['https://10.0.0.7/hook', 'a private address'],
      ['https://169.254.169.254/latest/meta-data', 'address'],
      ['https://[::1]/hook', 'a loopback address'],
      ['https://user:pass@partner.example/hook', 'user name or password'],
      ['not a url', 'absolute URL'],
    ])('a refused URL %s: 400 on url', async (url, words) => {
      const res = await admin.createWebhook({ org_id: 1, url, events: ['*'] });
      expect(res.status).toBe(400);
      expect(res.body.param).toBe('url');
      expect(res.body.error).toContain(words);
    });

    test('the host is resolved: a name with a refused address (vm → 127.0.0.1) or none at all is 400 on url; a public one accepted', async () => {
      const count = async () => ((await admin.listWebhooks(1)).body.data as unknown[]).length;
      const before = await count();
      for (const [url, words] of [
        ['https://vm/', 'url: vm resolves to a loopback address'],
        ['https://vm:8443/hooks', 'url: vm resolves to a loopback address'],
        ['https://no-such-host.invalid/hooks', 'url: no-such-host.invalid does not resolve (no such host)'],
      ]) {
        const res = await admin.createWebhook({ org_id: 1, url, events: ['*'] });
        expect([url, res.status, res.body.param, res.body.error]).toEqual([url, 400, 'url', words]);
      }
      expect(await count()).toBe(before);
      const accepted = await create({ url: 'https://hooks.partner.example/in' });
      expect(accepted.url).toBe('https://hooks.partner.example/in');
      // update-webhook too: the URL stays as it was.
      const data = await create();
      const moved = await admin.updateWebhook({ id: data.id, org_id: 1, url: 'https://vm/' });
      expect([moved.status, moved.body.param, moved.body.error]).toEqual([400, 'url', 'url: vm resolves to a loopback address']);
      expect((await rawItem(1, data.id)).url).toBe(URL_OK);
      // Room for the other tests of the org's 20.
      for (const id of [data.id, accepted.id]) expect((await admin.deleteWebhook(id, 1)).status).toBe(200);
    });

    test('locally, http://localhost and http://127.0.0.1 are accepted', async () => {
      expect((await create({ url: 'http://localhost:4000/hooks' })).url).toBe('http://localhost:4000/hooks');
      expect((await create({ url: 'http://127.0.0.1:4000/hooks' })).url).toBe('http://127.0.0.1:4000/hooks');
    });

    test.each([
      [['nope.happened'], 'events.0'],
      [['*', 'session.consumed'], 'events'],
      [['session.consumed', 'session.consumed'], 'events'],
      [[], 'events'],
    ])('bad events %j: 400', async (events, param) => {
      const res = await admin.createWebhook({ org_id: 1, url: URL_OK, events });
      expect(res.status).toBe(400);
      expect(res.body.param).toBe(param);
    });

    test.each([
      ['acme-owner', 200],
      ['acme-admin', 200],
      ['acme-member', 403],
      ['acme-analyst', 403],
      ['globex-admin', 403],
      ['stranger', 403],
    ])('%s on org 1: %p', async (subject, status) => {
      const res = await admin.createWebhook({ org_id: 1, url: URL_OK, events: ['*'] }, subject);
      expect(res.status).toBe(status);
      if (status === 403) expect(JSON.stringify(res.body)).not.toContain('whsec_');
    });

    test('an org below Business may not create one (403, the tier), but may list', async () => {
      const res = await admin.createWebhook({ org_id: 3, url: URL_OK, events: ['*'] }, 'tiny-admin');
      expect(res.status).toBe(403);
      expect(res.body.error).toBe('Business tier or higher required');
      expect((await admin.listWebhooks(3, 'tiny-admin')).status).toBe(200);
    });

    test('the 21st endpoint of an org is refused (409); after a delete there is room again', async () => {
      const ids: number[] = [];
      for (let i = 0; i < 20; i++) ids.push((await create({ org_id: 8, description: `n${i}` }, 'full-admin')).id);
      const refused = await admin.createWebhook({ org_id: 8, url: URL_OK, events: ['*'] }, 'full-admin');
      expect(refused.status).toBe(409);
      expect(refused.body.error).toContain('at most 20');
      expect((await admin.listWebhooks(8, 'full-admin')).body.data).toHaveLength(20);
      expect((await admin.deleteWebhook(ids[0]!, 8, 'full-admin')).status).toBe(200);
      expect((await admin.createWebhook({ org_id: 8, url: URL_OK, events: ['*'] }, 'full-admin')).status).toBe(200);
      expect((await admin.createWebhook({ org_id: 8, url: URL_OK, events: ['*'] }, 'full-admin')).status).toBe(409);
    });

    test('creates racing for the last place: never more than one gets it (the count is one transaction with the put)', async () => {
      await stack.services.stores.catalog.putOrg({ org_id: 9, slug: 'race', name: 'Race Studio', tier: 'business' });
      await stack.services.stores.catalog.putMember(9, 'race-admin', 'admin');
      for (let i = 0; i < 19; i++) await create({ org_id: 9 }, 'race-admin');
      const racing = await Promise.all(
        Array.from({ length: 6 }, () => admin.createWebhook({ org_id: 9, url: URL_OK, events: ['*'] }, 'race-admin')),
      );
      const statuses = racing.map((r) => r.status);
      const won = statuses.filter((st) => st === 200).length;
      // Never two; one in practice (a transaction cancelled by a concurrent one is a 503: try again).
      expect(won).toBeLessThanOrEqual(1);
      for (const status of statuses) expect([200, 409, 503]).toContain(status);
      expect((await admin.listWebhooks(9, 'race-admin')).body.data).toHaveLength(19 + won);
    });

    test('is audited with the admin and the endpoint, never the secret', async () => {
      const data = await create();
      const records = await auditRecords('create-webhook');
      const record = records.find((r) => r.webhook_id === data.id);
      expect(record).toMatchObject({ status: 200, actor: 'acme-admin', webhook_id: data.id });
      expect(JSON.stringify(records)).not.toContain('whsec_');
    });
  });

  describe('list-webhooks', () => {
    test('the org’s endpoints by id, every view field, never a secret', async () => {
      const data = await create({ description: 'listed' });
      const res = await admin.listWebhooks(1);
      expect(res.status).toBe(200);
      const text = JSON.stringify(res.body);
      expect(text).not.toContain('whsec_');
      expect(text).not.toMatch(/secret/);
      for (const w of res.body.data) expect(Object.keys(w).sort()).toEqual(VIEW_FIELDS);
      const { secret: _secret, ...view } = data;
      expect(res.body.data.find((w: any) => w.id === data.id)).toEqual(view);
      const ids = res.body.data.map((w: any) => w.id);
      expect(ids).toEqual([...ids].sort((a: number, b: number) => a - b));
      expect(res.body.data.every((w: any) => w.org_id === 1)).toBe(true);
    });

    test.each([
      ['acme-member', 403],
      ['globex-admin', 403],
    ])('%s: %p', async (subject, status) => {
      expect((await admin.listWebhooks(1, subject)).status).toBe(status);
    });

    test('org_id missing: 400', async () => {
      expect((await admin.listWebhooks('')).status).toBe(400);
    });
  });

  describe('update-webhook', () => {
    test('changes what is given, answers the view (no secret), and is audited with the diff', async () => {
      const data = await create();
      stack.clock.advance(1_000);
      const res = await admin.updateWebhook({
        id: data.id,
        org_id: 1,
        url: 'https://partner.example/v2',
        events: ['*'],
        description: 'moved',
        is_active: false,
      });
      expect(res.status).toBe(200);
      expect(Object.keys(res.body.data).sort()).toEqual(VIEW_FIELDS);
      expect(res.body.data).toMatchObject({ url: 'https://partner.example/v2', events: ['*'], description: 'moved', is_active: false });
      expect(res.body.data.updated_at > data.updated_at).toBe(true);
      expect(res.body.data.paused_at).toBe(res.body.data.updated_at);
      expect(JSON.stringify(res.body)).not.toContain('whsec_');
      // The secret stays as it was.
      expect(sealer().open((await rawItem(1, data.id)).secret_sealed, sealingContext(1, data.id))).toBe(data.secret);

      const record = (await auditRecords('update-webhook')).find((r) => r.webhook_id === data.id);
      expect(record.changes).toEqual(['url', 'events', 'description', 'is_active']);
      expect(record.diff).toEqual({
        url: { before: URL_OK, after: 'https://partner.example/v2' },
        events: { before: ['session.consumed'], after: ['*'] },
        description: { before: null, after: 'moved' },
        is_active: { before: true, after: false },
      });
    });

    test('paused_at: null when created, the pause’s time, kept by changes while paused (a second pause too), null once resumed', async () => {
      const data = await create();
      expect(data.paused_at).toBeNull();
      expect((await rawItem(1, data.id)).paused_at).toBeUndefined();

      stack.clock.advance(1_000);
      const from = stack.clock.now();
      const paused = await admin.updateWebhook({ id: data.id, org_id: 1, is_active: false });
      const to = stack.clock.now();
      expect(paused.status).toBe(200);
      const pausedAt = paused.body.data.paused_at;
      expect(pausedAt).toBe(paused.body.data.updated_at);
      expect(Date.parse(pausedAt)).toBeGreaterThanOrEqual(from);
      expect(Date.parse(pausedAt)).toBeLessThanOrEqual(to);
      expect((await listed(data.id)).paused_at).toBe(pausedAt);
      expect((await rawItem(1, data.id)).paused_at).toBe(pausedAt);

      stack.clock.advance(1_000);
      const described = await admin.updateWebhook({ id: data.id, org_id: 1, description: 'while paused' });
      expect(described.body.data).toMatchObject({ is_active: false, description: 'while paused', paused_at: pausedAt });
      stack.clock.advance(1_000);
      const again = await admin.updateWebhook({ id: data.id, org_id: 1, is_active: false, description: 'paused again' });
      expect(again.body.data).toMatchObject({ is_active: false, paused_at: pausedAt });
      expect(again.body.data.updated_at > pausedAt).toBe(true);
      expect((await listed(data.id)).paused_at).toBe(pausedAt);

      stack.clock.advance(1_000);
      const resumed = await admin.updateWebhook({ id: data.id, org_id: 1, is_active: true });
      expect(resumed.body.data).toMatchObject({ is_active: true, paused_at: null });
      expect((await listed(data.id)).paused_at).toBeNull();
      expect((await rawItem(1, data.id)).paused_at).toBeUndefined();
      const renamed = await admin.updateWebhook({ id: data.id, org_id: 1, description: 'active' });
      expect(renamed.body.data.paused_at).toBeNull();

      // Paused again: a new time.
      stack.clock.advance(1_000);
      const repaused = await admin.updateWebhook({ id: data.id, org_id: 1, is_active: false });
      expect(repaused.body.data.paused_at).toBe(repaused.body.data.updated_at);
      expect(repaused.body.data.paused_at > pausedAt).toBe(true);
      expect((await listed(data.id)).paused_at).toBe(repaused.body.data.paused_at);
      // Room for the other tests of the org's 20.
      expect((await admin.deleteWebhook(data.id, 1)).status).toBe(200);
    });

    test('an endpoint stored without paused_at (before the field) reads null, and a change keeps it so', async () => {
      const data = await create();
      expect((await admin.updateWebhook({ id: data.id, org_id: 1, is_active: false })).status).toBe(200);
      await stack.services.client.send(
        new UpdateCommand({
          TableName: stack.tableNames.catalog,
          Key: { pk: 'ORG#1', sk: `WEBHOOK#${sortableId(data.id)}` },
          UpdateExpression: 'REMOVE paused_at',
        }),
      );
      expect(await listed(data.id)).toMatchObject({ is_active: false, paused_at: null });
      const described = await admin.updateWebhook({ id: data.id, org_id: 1, description: 'old' });
      expect(described.body.data).toMatchObject({ is_active: false, paused_at: null });
      expect((await listed(data.id)).paused_at).toBeNull();
      expect((await admin.deleteWebhook(data.id, 1)).status).toBe(200);
    });

    test('description null clears it; a field left out stays', async () => {
      const data = await create({ description: 'to clear' });
      const res = await admin.updateWebhook({ id: data.id, org_id: 1, description: null });
      expect(res.body.data).toMatchObject({ description: null, url: URL_OK, events: ['session.consumed'] });
    });

    test('a refused URL: 400 on url, nothing changed', async () => {
      const data = await create();
      const res = await admin.updateWebhook({ id: data.id, org_id: 1, url: 'https://192.168.1.1/' });
      expect(res.status).toBe(400);
      expect(res.body.param).toBe('url');
      expect((await rawItem(1, data.id)).url).toBe(URL_OK);
    });

    test('an unknown endpoint, or another org’s: 404', async () => {
      expect((await admin.updateWebhook({ id: 999_999, org_id: 1, description: 'x' })).status).toBe(404);
      const data = await create();
      expect((await admin.updateWebhook({ id: data.id, org_id: 2, description: 'x' }, 'globex-admin')).status).toBe(404);
    });

    test('an editor may not (403)', async () => {
      const data = await create();
      expect((await admin.updateWebhook({ id: data.id, org_id: 1, description: 'x' }, 'acme-member')).status).toBe(403);
    });
  });

  describe('delete-webhook', () => {
    test('deletes it: gone from the list, its item gone, a second delete 404', async () => {
      const data = await create();
      const res = await admin.deleteWebhook(data.id, 1);
      expect(res.status).toBe(200);
      expect(res.body.data).toEqual({ id: data.id, deleted: true });
      expect((await admin.listWebhooks(1)).body.data.some((w: any) => w.id === data.id)).toBe(false);
      expect(
        (
          await stack.services.client.send(
            new GetCommand({ TableName: stack.tableNames.catalog, Key: { pk: 'ORG#1', sk: `WEBHOOK#${sortableId(data.id)}` } }),
          )
        ).Item,
      ).toBeUndefined();
      expect((await admin.deleteWebhook(data.id, 1)).status).toBe(404);
      expect((await auditRecords('delete-webhook')).some((r) => r.webhook_id === data.id && r.status === 200)).toBe(true);
    });

    test('another org’s: 404, and it stays; an analyst: 403', async () => {
      const data = await create();
      expect((await admin.deleteWebhook(data.id, 2, 'globex-admin')).status).toBe(404);
      expect((await admin.deleteWebhook(data.id, 1, 'acme-analyst')).status).toBe(403);
      expect((await rawItem(1, data.id)).id).toBe(data.id);
    });
  });

  describe('rotate-webhook-secret', () => {
    test('answers a new secret; the previous one is kept sealed for 24 hours', async () => {
      const data = await create();
      const res = await admin.rotateWebhookSecret({ id: data.id, org_id: 1 });
      expect(res.status).toBe(200);
      expect(Object.keys(res.body.data).sort()).toEqual(['id', 'previous_secret_expires_at', 'secret']);
      const { secret, previous_secret_expires_at: until } = res.body.data;
      expect(secret).toMatch(/^whsec_/);
      expect(secret).not.toBe(data.secret);
      const ahead = Date.parse(until) - stack.clock.now();
      expect(ahead).toBeGreaterThan(24 * 3_600_000 - 5_000);
      expect(ahead).toBeLessThanOrEqual(24 * 3_600_000);

      const item = await rawItem(1, data.id);
      const text = JSON.stringify(item);
      expect(text).not.toContain('whsec_');
      const context = sealingContext(1, data.id);
      expect(sealer().open(item.secret_sealed, context)).toBe(secret);
      expect(sealer().open(item.previous_secret_sealed, context)).toBe(data.secret);
      expect(item.previous_secret_until).toBe(until);

      // The list never shows either.
      const listed = JSON.stringify((await admin.listWebhooks(1)).body);
      expect(listed).not.toContain('whsec_');

      const record = (await auditRecords('rotate-webhook-secret')).find((r) => r.webhook_id === data.id);
      expect(record).toMatchObject({ status: 200, changes: ['secret'] });
      expect(JSON.stringify(record)).not.toContain('whsec_');
    });

    test('a second rotation keeps two secrets in force, never three', async () => {
      const data = await create();
      const first = (await admin.rotateWebhookSecret({ id: data.id, org_id: 1 })).body.data.secret;
      const second = (await admin.rotateWebhookSecret({ id: data.id, org_id: 1 })).body.data.secret;
      const item = await rawItem(1, data.id);
      const context = sealingContext(1, data.id);
      expect(sealer().open(item.secret_sealed, context)).toBe(second);
      expect(sealer().open(item.previous_secret_sealed, context)).toBe(first);
    });

    test('unknown endpoint 404; an editor 403; below Business 403', async () => {
      expect((await admin.rotateWebhookSecret({ id: 999_999, org_id: 1 })).status).toBe(404);
      const data = await create();
      expect((await admin.rotateWebhookSecret({ id: data.id, org_id: 1 }, 'acme-member')).status).toBe(403);
      expect((await admin.rotateWebhookSecret({ id: 1, org_id: 3 }, 'tiny-admin')).status).toBe(403);
    });
  });

  describe('failing_since', () => {
    /** A receiver on 127.0.0.1 that answers each POST with the next status of `answers` (then the last). */
    let receiver: Server;
    const answers: number[] = [];
    beforeAll(async () => {
      receiver = createServer((req, res) => {
        req.resume();
        req.on('end', () => res.writeHead(answers.length > 1 ? answers.shift()! : answers[0]!).end());
      });
      await new Promise<void>((done) => receiver.listen(0, '127.0.0.1', done));
    });
    afterAll(() => new Promise((done) => receiver.close(done)));

    /** A test event to the endpoint, attempted once by the delivery worker (its queued message handed to it as SQS would). */
    const attemptOnce = async (id: number) => {
      const { queue, restore } = recordDeliveries(stack);
      try {
        expect((await admin.testWebhook({ id, org_id: 1 })).status).toBe(200);
      } finally {
        restore();
      }
      const [message] = queue.messages;
      const event = { Records: [{ messageId: `m-${message!.delivery_id}`, body: JSON.stringify(message) }] } as unknown as SQSEvent;
      expect(await deliveryWorker(event)).toEqual({ batchItemFailures: [] });
      const deliveries = (await admin.listWebhookDeliveries({ org_id: 1, webhook_id: id })).body.data.deliveries;
      return deliveries.find((d: any) => d.id === message!.delivery_id);
    };

    test('null for a new endpoint; from a failed attempt on, the first failure’s time; null again after a success', async () => {
      const { port } = receiver.address() as AddressInfo;
      const data = await create({ url: `http://127.0.0.1:${port}/hook` });
      expect(data.failing_since).toBeNull();
      expect((await listed(data.id)).failing_since).toBeNull();

      answers.splice(0, answers.length, 500, 503, 204);
      const first = await attemptOnce(data.id);
      expect(first.last_status_code).toBe(500);
      expect((await listed(data.id)).failing_since).toBe(first.last_attempt_at);
      expect((await rawItem(1, data.id)).failing_since).toBe(first.last_attempt_at);

      // A later failure keeps the streak's start; update answers it too.
      stack.clock.advance(60_000);
      const second = await attemptOnce(data.id);
      expect(second.last_status_code).toBe(503);
      expect((await listed(data.id)).failing_since).toBe(first.last_attempt_at);
      const updated = await admin.updateWebhook({ id: data.id, org_id: 1, description: 'still failing' });
      expect(updated.body.data.failing_since).toBe(first.last_attempt_at);

      const third = await attemptOnce(data.id);
      expect(third.last_status_code).toBe(204);
      expect((await listed(data.id)).failing_since).toBeNull();
    });
  });
});
