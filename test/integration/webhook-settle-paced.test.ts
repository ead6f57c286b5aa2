/**
 * A burst of deliveries to one endpoint beyond its places (`ENDPOINT_PLACES`), on the backend of
 * this tier: the ones that find every place taken go back on the queue for a second (`busyWaitMs`),
 * so `workers.settle()` (what is due now) returns with them waiting, and a test reading the receiver
 * then misses events whenever the workers handed its deliveries together (on a loaded machine).
 * `stack.settleDeliveries()` moves the stack's clock through those waits: every one has arrived.
 */
import { beforeAll, expect, test } from '@jest/globals';
import type { SourcedEvent } from '../../shared/webhooks/delivery-model.js';
import { ENDPOINT_PLACES } from '../../shared/webhooks/endpoint-gate-store.js';
import { keyRateLimited } from '../../shared/webhooks/events-from-records.js';
import { WebhookFanOut } from '../../shared/webhooks/fan-out.js';
import { deliveryStore, webhookStore } from '../../shared/webhooks/services.js';
import { describeWithStack } from '../support/describe-with-stack.js';

/** More than two rounds of the endpoint's places. */
const BURST = 2 * ENDPOINT_PLACES + 2;

describeWithStack(
  `a burst paced by its endpoint's places, settled, on ${process.env.DYNAMODB_BACKEND === 'local' ? 'DynamoDB Local' : 'dynalite'}`,
  ({ stack, admin }) => {
    let webhookId: number;

    beforeAll(async () => {
      const res = await admin.createWebhook({ org_id: 1, url: `${stack.baseUrl}/dev/webhooks/burst`, events: ['*'] });
      expect(res.status).toBe(200);
      webhookId = res.body.data.id;
    });

    test(`${BURST} deliveries to one endpoint at once: every one has arrived once settleDeliveries resolves, none waits on the queue`, async () => {
      const queue = stack.workers.queues['webhook-deliveries'];
      // The events worker's sink on the stack's queue: the burst is stored and enqueued at once, as
      // a stream batch's records are when the machine's load bunched the writes together.
      const fanOut = new WebhookFanOut({ webhooks: webhookStore(), deliveries: deliveryStore(), queue, clock: stack.clock });
      const nowMs = stack.clock.now();
      const events: SourcedEvent[] = Array.from({ length: BURST }, (_, i) => ({
        org_id: 1,
        source_id: `burst-${i}`,
        event: keyRateLimited(i + 1, { name: 'minute', limit: 10, startMs: nowMs, endMs: nowMs + 60_000 }, nowMs),
      }));
      await fanOut.publish(events);

      await stack.settleDeliveries();

      const arrived = stack.devWebhooks.arrived().filter((d) => d.path === '/dev/webhooks/burst');
      expect(arrived.every((d) => d.verified)).toBe(true);
      const keyIds = arrived.map((d) => (JSON.parse(d.body) as { data: { key_id: number } }).data.key_id);
      expect(keyIds.sort((a, b) => a - b)).toEqual(Array.from({ length: BURST }, (_, i) => i + 1));
      expect(queue.pending().filter((m) => (JSON.parse(m.body) as { webhook_id: number }).webhook_id === webhookId)).toEqual([]);
    }, 60_000);
  },
  { workers: true },
);
