/**
 * The local delivery queue as `npm start` runs it (`infra/local/delivery-queue.ts`), on the backend
 * of this tier: a receiver that holds its requests does not hold up another endpoint's attempts
 * (the queue's batches run side by side, as Lambda's poller runs them), and a restart of the
 * queue (a new one on the same data folder, as after a restart of `npm start`) hands again what
 * was sent and not yet done, so no delivery stays `pending`.
 */
import { afterAll, beforeAll, expect, test } from '@jest/globals';
import { join } from 'node:path';
import { LocalDeliveryQueue } from '../../infra/local/delivery-queue.js';
import { queryItems } from '../../shared/platform/dynamo/client.js';
import { handler as deliveryHandler } from '../../shared/webhooks/workers/webhook-delivery.js';
import { CountingReceiver } from '../support/counting-receiver.js';
import { describeWithStack } from '../support/describe-with-stack.js';
import { createTestKey, UNLIMITED, type TestKey } from '../support/keys.js';
import { sessionsApi } from '../support/sessions-api.js';

/** Wait until `done()` holds, polling; false when `timeoutMs` passed first. */
async function until(done: () => boolean | Promise<boolean>, timeoutMs: number): Promise<boolean> {
  const end = Date.now() + timeoutMs;
  while (!(await done())) {
    if (Date.now() > end) return false;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  return true;
}

describeWithStack(
  `the local delivery queue, on ${process.env.DYNAMODB_BACKEND === 'local' ? 'DynamoDB Local' : 'dynalite'}`,
  ({ stack, admin }) => {
    const receiver = new CountingReceiver();
    let partner: TestKey;
    const api = () => sessionsApi(stack, () => partner.raw);
    /** A new endpoint of org 1 at `path` on the receiver, taking session.revoked. */
    const endpoint = async (path: string): Promise<number> => {
      const res = await admin.createWebhook({ org_id: 1, url: receiver.url(path), events: ['session.revoked'] });
      expect(res.status).toBe(200);
      stack.secrets.noteText(res.body.data.secret);
      return res.body.data.id as number;
    };
    const revokedAt = (path: string, token: string) => receiver.at(path).some((a) => a.type === 'session.revoked' && a.token === token);
    const revokeNew = async () => {
      const token = await api().mint();
      expect((await api().revoke({ token })).status).toBe(200);
      return token;
    };

    beforeAll(async () => {
      await receiver.start();
      partner = await createTestKey(stack, UNLIMITED);
    });
    afterAll(() => receiver.stop());

    test("a receiver that holds its requests does not hold up another endpoint's attempts", async () => {
      await endpoint('/slow');
      await endpoint('/quick');
      receiver.holdUnder('/slow');
      const first = await revokeNew();
      expect(await until(() => revokedAt('/slow', first) && revokedAt('/quick', first), 20_000)).toBe(true);
      // The slow endpoint holds its attempt (until released, or the attempt's 15-s limit) while the next event goes out.
      const second = await revokeNew();
      const quickWhileHeld = await until(() => revokedAt('/quick', second), 8_000);
      receiver.release();
      expect(quickWhileHeld).toBe(true);
      await stack.workers.settle();
      expect(revokedAt('/slow', second)).toBe(true);
    }, 60_000);

    test('a restart hands again what the queue held: the delivery is attempted, not left pending', async () => {
      const webhookId = await endpoint('/after-restart');
      const queue = stack.workers.queues['webhook-deliveries'];
      await stack.workers.settle();
      // The queue stops taking messages, as a process that stops: what it is sent stays held.
      await queue.stop();
      const token = await revokeNew();
      const stored = () =>
        queryItems(stack.services.client, {
          TableName: stack.tableNames.webhooks,
          KeyConditionExpression: 'pk = :pk',
          ExpressionAttributeValues: { ':pk': `DELIVERY#${webhookId}` },
          ConsistentRead: true,
        });
      expect(await until(async () => (await stored()).length === 1 && queue.pending().length > 0, 20_000)).toBe(true);
      expect((await stored())[0]).toMatchObject({ status: 'pending', attempts: 0 });

      // The restarted queue, on the same data folder, with the delivery worker's handler.
      const restarted = new LocalDeliveryQueue({
        clock: stack.clock,
        journal: join(stack.dataDir, 'webhook-deliveries.queue.jsonl'),
        handler: deliveryHandler,
      });
      expect(restarted.pending().length).toBeGreaterThan(0);
      await restarted.runDue();
      expect(revokedAt('/after-restart', token)).toBe(true);
      expect((await stored())[0]).toMatchObject({ status: 'succeeded', attempts: 1 });
    }, 60_000);
  },
  { workers: true },
);
