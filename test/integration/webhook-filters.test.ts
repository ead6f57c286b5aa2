/**
 * Endpoint filters set by an admin (docs/decisions.md#endpoint-filters), end to end on the backend
 * of this tier: endpoints with a filter of every shape (absent, null, games, streams, both, empty
 * lists) against tokens of games and of streams consumed through the front, the events going
 * through the streams, the `webhook-events` worker and the delivery worker to the development
 * receiver; exactly the matching events arrive (session.expired from the due sweep too), and the
 * stored deliveries agree. A changed filter holds for the events after it (audited with its diff);
 * a bad filter is a 400 naming its field.
 */
import { beforeAll, describe, expect, test } from '@jest/globals';
import { UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { sortableId } from '../../shared/platform/dynamo/client.js';
import { describeWithStack } from '../support/describe-with-stack.js';
import { createTestKey, UNLIMITED, type TestKey } from '../support/keys.js';
import { sessionsApi } from '../support/sessions-api.js';

/** Each end-to-end test runs the workers a few times over; on a loaded machine that takes a while. */
const E2E_TIMEOUT_MS = 120_000;

/** The seed's targets of org 1: games 101, 102; streams 201, 202. */
const TARGETS = [
  { name: 'game 101', body: { game_id: 101 } },
  { name: 'game 102', body: { game_id: 102 } },
  { name: 'stream 201', body: { stream_id: 201 } },
  { name: 'stream 202', body: { stream_id: 202 } },
] as const;

describeWithStack(
  `endpoint filters set by an admin, on ${process.env.DYNAMODB_BACKEND === 'local' ? 'DynamoDB Local' : 'dynalite'}`,
  ({ stack, admin }) => {
    let partner: TestKey;
    const api = () => sessionsApi(stack, () => partner.raw);
    let round = 0;

    beforeAll(async () => {
      partner = await createTestKey(stack, UNLIMITED);
    });

    /** An endpoint of org 1 taking `events`, at `/dev/webhooks/<name>`, with `filter` as given (undefined: left out). */
    const endpoint = async (name: string, filter?: unknown, events = ['session.consumed']) => {
      const res = await admin.createWebhook({
        org_id: 1,
        url: `${stack.baseUrl}/dev/webhooks/${name}`,
        events,
        ...(filter !== undefined && { filter }),
      });
      expect(res.status).toBe(200);
      return res.body.data as Record<string, any>;
    };
    /** Consume one token of each target; the tokens by target name. */
    const consumeOneOfEach = async () => {
      round += 1;
      const tokens = new Map<string, string>();
      for (const target of TARGETS) {
        const token = await api().mint({ ...target.body, external_ref: `round-${round}` });
        expect((await api().consume({ token })).status).toBe(200);
        tokens.set(token, target.name);
      }
      await stack.workers.settle();
      return tokens;
    };
    /** The targets whose tokens of `tokens` reached `/dev/webhooks/<name>`, in TARGETS order; all verified. */
    const reached = (name: string, tokens: Map<string, string>) => {
      const arrived = stack.devWebhooks.arrived().filter((d) => d.path === `/dev/webhooks/${name}`);
      expect(arrived.every((d) => d.verified)).toBe(true);
      const names = arrived.map((d) => tokens.get(JSON.parse(d.body).data.token)).filter((n) => n !== undefined);
      return TARGETS.map((t) => t.name).filter((n) => names.includes(n));
    };
    /** The stored deliveries of an endpoint with the token of each, as the receiver got them. */
    const storedTokens = async (webhookId: number, tokens: Map<string, string>) => {
      const res = await admin.listWebhookDeliveries({ org_id: 1, webhook_id: webhookId, limit: 100 });
      const ids = new Set((res.body.data.deliveries as any[]).map((d) => d.id as string));
      const bodies = stack.devWebhooks.arrived().filter((d) => d.webhook_id !== null && ids.has(d.webhook_id));
      const names = bodies.map((d) => tokens.get(JSON.parse(d.body).data.token)).filter((n) => n !== undefined);
      return { count: ids.size, names: TARGETS.map((t) => t.name).filter((n) => names.includes(n)) };
    };

    test(
      'each shape lets through exactly its session events; stored deliveries agree; the list shows each filter',
      async () => {
        const shapes = [
          ['f-absent', undefined, ['game 101', 'game 102', 'stream 201', 'stream 202']],
          ['f-null', null, ['game 101', 'game 102', 'stream 201', 'stream 202']],
          ['f-game101', { game_ids: [101] }, ['game 101', 'stream 201', 'stream 202']],
          ['f-game101-only', { game_ids: [101], stream_ids: [] }, ['game 101']],
          ['f-stream201', { stream_ids: [201] }, ['game 101', 'game 102', 'stream 201']],
          ['f-both', { game_ids: [102], stream_ids: [201] }, ['game 102', 'stream 201']],
          ['f-none', { game_ids: [], stream_ids: [] }, []],
        ] as const;
        const made = new Map<string, Record<string, any>>();
        for (const [name, filter] of shapes) made.set(name, await endpoint(name, filter));
        expect(made.get('f-absent')).toMatchObject({ filter: null, key_id: null });
        expect(made.get('f-game101')).toMatchObject({ filter: { game_ids: [101], stream_ids: null }, key_id: null });

        const tokens = await consumeOneOfEach();
        for (const [name, , expected] of shapes) {
          expect([name, reached(name, tokens)]).toEqual([name, expected]);
          const stored = await storedTokens(made.get(name)!.id, tokens);
          expect([name, stored]).toEqual([name, { count: expected.length, names: expected }]);
        }

        const listed = (await admin.listWebhooks(1)).body.data as any[];
        const shown = Object.fromEntries(listed.filter((w) => [...made.values()].some((m) => m.id === w.id)).map((w) => [w.id, w.filter]));
        expect(shown).toEqual({
          [made.get('f-absent')!.id]: null,
          [made.get('f-null')!.id]: null,
          [made.get('f-game101')!.id]: { game_ids: [101], stream_ids: null },
          [made.get('f-game101-only')!.id]: { game_ids: [101], stream_ids: [] },
          [made.get('f-stream201')!.id]: { game_ids: null, stream_ids: [201] },
          [made.get('f-both')!.id]: { game_ids: [102], stream_ids: [201] },
          [made.get('f-none')!.id]: { game_ids: [], stream_ids: [] },
        });
      },
      E2E_TIMEOUT_MS,
    );

    test(
      'a changed filter holds for the events after it, audited with its diff; null removes it',
      async () => {
        const hook = await endpoint('f-changing', { game_ids: [101], stream_ids: [] });
        expect(reached('f-changing', await consumeOneOfEach())).toEqual(['game 101']);

        const changed = await admin.updateWebhook({ id: hook.id, org_id: 1, filter: { game_ids: [102], stream_ids: [202] } });
        expect(changed.status).toBe(200);
        expect(changed.body.data).toMatchObject({ filter: { game_ids: [102], stream_ids: [202] }, key_id: null });
        let tokens = await consumeOneOfEach();
        expect(reached('f-changing', tokens)).toEqual(['game 102', 'stream 202']);
        expect(await storedTokens(hook.id, tokens)).toEqual({ count: 3, names: ['game 102', 'stream 202'] });

        const audit = ((await admin.audit({ org_id: 1 })).body.data.records as any[]).find(
          (r) => r.action === 'update-webhook' && r.webhook_id === hook.id,
        );
        expect(audit).toMatchObject({
          status: 200,
          changes: ['filter'],
          diff: {
            'filter.game_ids': { before: [101], after: [102] },
            'filter.stream_ids': { before: [], after: [202] },
          },
        });

        expect((await admin.updateWebhook({ id: hook.id, org_id: 1, filter: null })).body.data.filter).toBeNull();
        tokens = await consumeOneOfEach();
        expect(reached('f-changing', tokens)).toEqual(['game 101', 'game 102', 'stream 201', 'stream 202']);
      },
      E2E_TIMEOUT_MS,
    );

    test(
      'an endpoint stored before filters (no filter, no key_id) reads as unfiltered and admin-made',
      async () => {
        const hook = await endpoint('f-old', { game_ids: [101] });
        await stack.services.client.send(
          new UpdateCommand({
            TableName: stack.tableNames.catalog,
            Key: { pk: 'ORG#1', sk: `WEBHOOK#${sortableId(hook.id)}` },
            UpdateExpression: 'REMOVE #filter, key_id',
            ExpressionAttributeNames: { '#filter': 'filter' },
          }),
        );
        const listed = ((await admin.listWebhooks(1)).body.data as any[]).find((w) => w.id === hook.id);
        expect(listed).toMatchObject({ filter: null, key_id: null });
        expect(reached('f-old', await consumeOneOfEach())).toEqual(['game 101', 'game 102', 'stream 201', 'stream 202']);
      },
      E2E_TIMEOUT_MS,
    );

    test(
      'session.expired from the due sweep passes the filter too',
      async () => {
        await endpoint('f-expired', { game_ids: [101], stream_ids: [] }, ['session.expired']);
        const kept = await api().mint({ game_id: 101, expires_in_minutes: 1 });
        const other = await api().mint({ game_id: 102, expires_in_minutes: 1 });
        const stream = await api().mint({ stream_id: 201, expires_in_minutes: 1 });
        await stack.workers.settle();
        stack.clock.advance(2.5 * 60_000);
        await stack.workers.runScheduled();
        await stack.workers.settle();
        const arrived = stack.devWebhooks.arrived().filter((d) => d.path === '/dev/webhooks/f-expired');
        expect(arrived.map((d) => JSON.parse(d.body) as { type: string; data: { token: string } })).toEqual([
          expect.objectContaining({ type: 'session.expired', data: expect.objectContaining({ token: kept }) }),
        ]);
        expect([other, stream].some((t) => arrived.some((d) => d.body.includes(t)))).toBe(false);
      },
      E2E_TIMEOUT_MS,
    );

    describe('a bad filter: 400 naming its field', () => {
      const base = { org_id: 1, url: 'https://partner.example/f', events: ['*'] };
      test.each([
        ['id 0', { game_ids: [0] }, 'filter.game_ids.0'],
        ['a negative id', { stream_ids: [-3] }, 'filter.stream_ids.0'],
        ['a fraction', { game_ids: [1.5] }, 'filter.game_ids.0'],
        ['a string id', { game_ids: ['101'] }, 'filter.game_ids.0'],
        ['a repeated id', { game_ids: [101, 101] }, 'filter.game_ids'],
        ['1,001 ids', { stream_ids: Array.from({ length: 1001 }, (_, i) => i + 1) }, 'filter.stream_ids'],
        ['an unknown field', { games: [101] }, 'filter.games'],
        ['a list', [101], 'filter'],
        ['a string', '101', 'filter'],
      ])('%s', async (_name, filter, param) => {
        const created = await admin.createWebhook({ ...base, filter });
        expect([created.status, created.body.param]).toEqual([400, param]);
        const hook = (await admin.listWebhooks(1)).body.data[0];
        const updated = await admin.updateWebhook({ id: hook.id, org_id: 1, filter });
        expect([updated.status, updated.body.param]).toEqual([400, param]);
      });

      test('1,000 ids are accepted', async () => {
        const ids = Array.from({ length: 1000 }, (_, i) => i + 1);
        const res = await admin.createWebhook({ ...base, filter: { game_ids: ids } });
        expect(res.status).toBe(200);
        expect(res.body.data.filter.game_ids).toHaveLength(1000);
        expect((await admin.deleteWebhook(res.body.data.id, 1)).status).toBe(200);
      });
    });
  },
  { workers: true },
);
