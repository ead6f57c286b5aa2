/**
 * Every consumed token becomes exactly one `session.consumed` per endpoint that takes it, whatever
 * metadata it was minted with (docs/webhooks.md#event-payloads): tokens with `{}` and with rich
 * metadata (unicode, nesting, numbers beyond 2^53, the full 4,096 bytes) consumed in bursts beside
 * tokens without, through consume-session and through the play page's `POST /play/session`, on the
 * backend of this tier (dynalite's stream stand-in, or DynamoDB Local's own streams). What arrives
 * at the receiver and what the deliveries table holds are both checked, and the local failures list
 * stays empty: no record was kept as unreadable, none given up.
 */
import { beforeAll, expect, test } from '@jest/globals';
import { DynamoDeliveryStore } from '../../shared/webhooks/delivery-store.js';
import { describeWithStack } from '../support/describe-with-stack.js';
import { createTestKey, UNLIMITED, type TestKey } from '../support/keys.js';
import { startPlay } from '../support/play-pages.js';
import { sessionsApi } from '../support/sessions-api.js';

/** Metadata of 4,096 serialized bytes exactly: unicode (2-, 3- and 4-byte characters), nesting, a number beyond 2^53. */
function fullMetadata(): Record<string, unknown> {
  const base = {
    'é名🎮': ['ünïcödé', { deep: { deeper: [1.5, -0, null, true] } }],
    big: Number('12345678901234567890'),
    tiny: 5e-324,
    pad: '',
  };
  const room = 4_096 - Buffer.byteLength(JSON.stringify(base));
  return { ...base, pad: 'x'.repeat(room) };
}

/** The metadata each burst's tokens are minted with (index in the burst); the rest have none. */
const METADATA: readonly Record<number, Record<string, unknown>>[] = [
  { 0: {} },
  { 0: {}, 3: { player: { name: 'Zoë', level: Number('9007199254740993') }, tags: ['a', 'β'] } },
  { 0: fullMetadata(), 5: {} },
];
const BURSTS = 3;
const PER_BURST = 8;

describeWithStack(
  `session.consumed for every consumed token, metadata or none, on ${process.env.DYNAMODB_BACKEND === 'local' ? 'DynamoDB Local' : 'dynalite'}`,
  ({ stack, admin }) => {
    let partner: TestKey;
    let webhookId: number;
    const api = () => sessionsApi(stack, () => partner.raw);
    const consumedArrived = () =>
      stack.devWebhooks.arrived().filter((d) => d.path === '/dev/webhooks/metadata' && d.type === 'session.consumed');
    /**
     * Settle until `count` deliveries arrived: a burst to one endpoint takes its few places, and the
     * rest wait a few seconds of the stack's clock (shared/webhooks/deliver.ts `busyWaitMs`).
     */
    const deliveredAll = async (count: number) => {
      await stack.workers.settle();
      for (let round = 0; round < 12 && consumedArrived().length < count; round++) {
        stack.clock.advance(5_000);
        await stack.workers.settle();
      }
    };

    beforeAll(async () => {
      partner = await createTestKey(stack, UNLIMITED);
      const res = await admin.createWebhook({ org_id: 1, url: `${stack.baseUrl}/dev/webhooks/metadata`, events: ['*'] });
      expect(res.status).toBe(200);
      webhookId = res.body.data.id;
    });

    test('24 consumes in 3 bursts, with metadata {} and richer, over REST and POST /play/session: one session.consumed each, metadata as given', async () => {
      expect(Buffer.byteLength(JSON.stringify(METADATA[2]![0]))).toBe(4_096);
      /** Each token and the metadata it was given (null: none). */
      const given = new Map<string, Record<string, unknown> | null>();
      for (let burst = 0; burst < BURSTS; burst++) {
        const tokens: string[] = [];
        for (let i = 0; i < PER_BURST; i++) {
          const metadata = METADATA[burst]![i];
          const token = await api().mint({ game_id: 101, ...(metadata ? { metadata } : {}) });
          tokens.push(token);
          given.set(token, metadata ?? null);
        }
        // A burst: the consumes at once, so their stream records are read in the same batches.
        const answers = await Promise.all(
          tokens.map(async (token, i) =>
            i % 2 === 0 ? (await api().consume({ token })).status : (await startPlay(stack, { token })).status,
          ),
        );
        expect(answers).toEqual(tokens.map(() => 200));
      }
      await deliveredAll(given.size);

      const expected = [...given]
        .map(([token, metadata]) => ({ token, metadata: metadata && JSON.parse(JSON.stringify(metadata)) }))
        .sort(byToken);
      // What the receiver got: one signed session.consumed per token, with its metadata as given.
      const arrived = consumedArrived().map((d) => ({
        verified: d.verified,
        data: (JSON.parse(d.body) as { data: { token: string; metadata: unknown } }).data,
      }));
      expect(arrived.every((d) => d.verified)).toBe(true);
      expect(arrived.map(({ data }) => ({ token: data.token, metadata: data.metadata })).sort(byToken)).toEqual(expected);
      // What is stored: one delivery per token, succeeded, its body the one that arrived.
      const store = new DynamoDeliveryStore({ client: stack.services.client, tableName: stack.tableNames.webhooks });
      const { deliveries } = await store.listByWebhook(webhookId, 100);
      const consumed = deliveries.filter((d) => d.event_type === 'session.consumed');
      expect(consumed.every((d) => d.status === 'succeeded')).toBe(true);
      const stored = consumed.map((d) => (JSON.parse(d.body) as { data: { token: string; metadata: unknown } }).data);
      expect(stored.map((data) => ({ token: data.token, metadata: data.metadata })).sort(byToken)).toEqual(expected);
      // Nothing kept as a failure (the local failures list, as /dev/webhooks shows it).
      const page = await stack.request('/dev/webhooks?format=json');
      expect(page.body.failures).toEqual([]);
    }, 120_000);
  },
  { workers: true },
);

function byToken(a: { token: string }, b: { token: string }): number {
  return a.token < b.token ? -1 : a.token > b.token ? 1 : 0;
}
