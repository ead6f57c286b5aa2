/**
 * The due sweep under load, as `npm start` runs it, on the backend of this tier: hundreds of tokens
 * of one minute's expiry minted in bursts with two endpoints taking every event, the clock moved past
 * their expiry and the scheduled workers run, while DynamoDB throttles the sweep's calls and then
 * fails them outright for 6 minutes: every `session.expired` reaches each endpoint once, no delivery
 * is left `pending`, no connection error is logged, and admin calls made amid the bursts answer 200.
 * And a sweep that fails for longer than its 5-minute lookback still delivers those minutes
 * afterwards (its watermark kept them).
 */
import { afterAll, afterEach, beforeAll, expect, test } from '@jest/globals';
import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { logicalTableName } from '../../infra/local/table-names.js';
import { queryItems } from '../../shared/platform/dynamo/client.js';
import { CountingReceiver } from '../support/counting-receiver.js';
import { describeWithStack } from '../support/describe-with-stack.js';
import { createTestKey, UNLIMITED, type TestKey } from '../support/keys.js';
import { capturedLogs, type Stack } from '../support/local-stack.js';
import { sessionsApi } from '../support/sessions-api.js';

/**
 * Tokens of the load (2 endpoints make twice as many deliveries): as many as the tier runs in about
 * a minute on a shared 2-core machine, where the embedded DynamoDB answers a few hundred calls a
 * second and each delivery's attempt (and each wait for an endpoint's place) costs several.
 */
const TOKENS = 150;
/** Create-session calls at once. */
const BURST = 50;

/** One DynamoDB attempt as the fault switch sees it. */
interface Attempt {
  readonly command: string;
  readonly table: string;
  /** Whether it reads or writes due items (the sweep's own partitions). */
  readonly due: boolean;
  /** Whether it stores a new delivery (the fan-out's conditional put). */
  readonly creates: boolean;
}

/** DynamoDB refusing for capacity, as the SDK reports it. */
const throttled = () =>
  Object.assign(new Error('The level of configured provisioned throughput for the table was exceeded.'), {
    name: 'ProvisionedThroughputExceededException',
    $fault: 'client',
    $metadata: { httpStatusCode: 400 },
  });

/** Fail the attempts `fails` picks, inside the service's retries (each attempt passes here); none while it is undefined. */
function faultSwitch(client: DynamoDBDocumentClient): { fails: ((attempt: Attempt) => boolean) | undefined; failed: number } {
  const state: { fails: ((attempt: Attempt) => boolean) | undefined; failed: number } = { fails: undefined, failed: 0 };
  client.middlewareStack.add(
    (next, context) => async (args) => {
      const input = args.input as { TableName?: string; RequestItems?: Record<string, unknown> };
      const attempt = {
        command: (context.commandName ?? '').replace(/Command$/, ''),
        table: logicalTableName(input.TableName ?? Object.keys(input.RequestItems ?? {})[0] ?? ''),
        due: JSON.stringify(args.input).includes('"DUE#'),
        creates: JSON.stringify(args.input).includes('"pk":"DELIVERY#') && JSON.stringify(args.input).includes('attribute_not_exists'),
      };
      if (state.fails?.(attempt)) {
        state.failed++;
        throw throttled();
      }
      return next(args);
    },
    { step: 'initialize', priority: 'low', name: 'dueLoadFaults' },
  );
  return state;
}

/** Every delivery of an endpoint as stored. */
async function storedDeliveries(stack: Stack, webhookId: number): Promise<Record<string, unknown>[]> {
  return queryItems(stack.services.client, {
    TableName: stack.tableNames.webhooks,
    KeyConditionExpression: 'pk = :pk',
    ExpressionAttributeValues: { ':pk': `DELIVERY#${webhookId}` },
    ConsistentRead: true,
  });
}

describeWithStack(
  `the due sweep under load, on ${process.env.DYNAMODB_BACKEND === 'local' ? 'DynamoDB Local' : 'dynalite'}`,
  ({ stack, admin }) => {
    const receiver = new CountingReceiver();
    let partner: TestKey;
    let faults: ReturnType<typeof faultSwitch>;
    const endpoints: Record<'a' | 'b', number> = { a: 0, b: 0 };
    const api = () => sessionsApi(stack, () => partner.raw);
    const logsFrom = capturedLogs.length;

    beforeAll(async () => {
      await receiver.start();
      partner = await createTestKey(stack, UNLIMITED);
      for (const name of ['a', 'b'] as const) {
        const res = await admin.createWebhook({ org_id: 1, url: receiver.url(`/${name}`), events: ['*'] });
        expect(res.status).toBe(200);
        stack.secrets.noteText(res.body.data.secret);
        endpoints[name] = res.body.data.id;
      }
      faults = faultSwitch(stack.services.client);
    });
    afterEach(() => (faults.fails = undefined));
    afterAll(() => receiver.stop());

    /** `count` tokens expiring in a minute, minted `BURST` at a time; their stream records read (their due items written). */
    const mintExpiring = async (count: number): Promise<string[]> => {
      const tokens: string[] = [];
      for (let i = 0; i < count; i += BURST) {
        const burst = Array.from({ length: Math.min(BURST, count - i) }, () => api().mint({ game_id: 101, expires_in_minutes: 1 }));
        tokens.push(...(await Promise.all(burst)));
      }
      await stack.workers.settle();
      return tokens;
    };

    /** Run the scheduled workers; whether the sweep failed. */
    const sweep = async (): Promise<boolean> =>
      stack.workers.runScheduled().then(
        () => false,
        () => true,
      );

    /** Hand every message the queue holds, moving the clock to each one's time (an endpoint's places free with time). */
    const deliverAll = async () => {
      const queue = stack.workers.queues['webhook-deliveries'];
      await stack.workers.settle();
      for (let round = 0; round < 500; round++) {
        const next = queue.nextDueAt();
        if (next === undefined) return;
        stack.clock.advance(Math.max(0, next - stack.clock.now()));
        await stack.workers.settle();
      }
      throw new Error(`the queue still holds ${queue.pending().length} messages`);
    };

    /**
     * What each endpoint has of `tokens`' session.expired: one delivery per token (one webhook-id,
     * arrived), stored once and succeeded at its first attempt; and no delivery of the endpoint pending.
     */
    const expectDeliveredOnce = async (tokens: readonly string[]) => {
      for (const name of ['a', 'b'] as const) {
        const expired = receiver.at(`/${name}`).filter((a) => a.type === 'session.expired' && tokens.includes(a.token!));
        // One webhook-id per token, and every token's.
        const idsByToken = new Map<string, Set<string>>();
        for (const a of expired) idsByToken.set(a.token!, (idsByToken.get(a.token!) ?? new Set()).add(a.webhookId));
        expect([...idsByToken.keys()].sort()).toEqual([...tokens].sort());
        expect([...idsByToken.values()].filter((ids) => ids.size !== 1)).toEqual([]);
        const stored = (await storedDeliveries(stack, endpoints[name])).filter(
          (d) => d.event_type === 'session.expired' && tokens.includes(JSON.parse(d.body as string).data.token),
        );
        expect(stored).toHaveLength(tokens.length);
        expect(stored.filter((d) => d.status !== 'succeeded' || d.attempts !== 1).map((d) => [d.id, d.status, d.attempts])).toEqual([]);
      }
      const pending = [];
      for (const name of ['a', 'b'] as const)
        pending.push(...(await storedDeliveries(stack, endpoints[name])).filter((d) => d.status === 'pending'));
      expect(pending).toEqual([]);
    };

    test(`${TOKENS} tokens minted in bursts, swept through throttling and 6 minutes of a failing store: each session.expired once per endpoint, none pending`, async () => {
      // Admin calls in the middle of the bursts answer as they would without them.
      const spare = await admin.createWebhook({ org_id: 1, url: receiver.url('/spare'), events: ['key.created'] });
      stack.secrets.noteText(spare.body.data.secret);
      const minting = mintExpiring(TOKENS);
      const adminCalls = await Promise.all([
        admin.create({ org_id: 1, name: 'created under load' }),
        admin.deleteWebhook(spare.body.data.id, 1),
      ]);
      expect(adminCalls.map((reply) => reply.status)).toEqual([200, 200]);
      stack.secrets.noteText(adminCalls[0]!.body.data.key);
      const tokens = await minting;
      stack.clock.advance(2.5 * 60_000);

      // The sweep's calls throttled: one attempt in three, and the due items' deletes every time
      // after the first 4 (the first chunk's, or fewer when the one-in-three throttling hits them) (the sweep fails mid-way, the second chunk's
      // events handed on, its items kept).
      let attempts = 0;
      let deletes = 0;
      faults.fails = (attempt) => {
        if (attempt.command === 'BatchWrite' && attempt.due && ++deletes > 4) return true;
        const sweeps = attempt.due || attempt.creates || (attempt.table === 'tokens' && attempt.command === 'BatchGet');
        return sweeps && ++attempts % 3 === 0;
      };
      expect(await sweep()).toBe(true);
      expect(faults.failed).toBeGreaterThan(20);
      await stack.workers.settle();
      // Then DynamoDB out of reach for the sweep's reads for 6 minutes: each run fails.
      faults.fails = (attempt) => attempt.due;
      for (let minute = 0; minute < 6; minute++) {
        stack.clock.advance(60_000);
        expect(await sweep()).toBe(true);
      }
      faults.fails = undefined;
      // The next run takes what the failed ones left.
      stack.clock.advance(60_000);
      expect(await sweep()).toBe(false);
      await deliverAll();
      await expectDeliveredOnce(tokens);
      expect(capturedLogs.slice(logsFrom).filter((line) => /EAGAIN|ECONNRESET|EPIPE/.test(line))).toEqual([]);
    }, 240_000);

    test('a sweep failing for 7 minutes (more than its 5-minute lookback) delivers those minutes once it runs again', async () => {
      const tokens = await mintExpiring(40);
      stack.clock.advance(2 * 60_000);
      // DynamoDB refuses every read of due items: each run fails.
      faults.fails = (attempt) => attempt.due;
      for (let minute = 0; minute < 7; minute++) {
        expect(await sweep()).toBe(true);
        stack.clock.advance(60_000);
      }
      faults.fails = undefined;
      expect(receiver.arrivals.filter((a) => a.type === 'session.expired' && tokens.includes(a.token!))).toEqual([]);
      expect(await sweep()).toBe(false);
      await deliverAll();
      await expectDeliveredOnce(tokens);
    }, 120_000);
  },
  { workers: true },
);
