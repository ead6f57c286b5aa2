/** The webhooks feature's parts: its adapters (endpoints in the catalog table, their secrets' sealer, deliveries and their queue). */
import { env, required } from '../platform/env.js';
import { OrgBudget } from '../platform/org-budget.js';
import { secret } from '../platform/secrets.js';
import {
  budgetStore,
  coreServices,
  hostLookupOverride,
  isLocalRun,
  part,
  queueOverride,
  sequenceStore,
  storeOptions,
} from '../platform/services.js';
import { IdAllocator } from '../platform/ids.js';
import { DynamoDeliveryStore } from './delivery-store.js';
import type { DeliveryQueue } from './ports.js';
import { AesGcmSealer } from './secret-sealer.js';
import { SqsDeliveryQueue } from './sqs-delivery-queue.js';
import { KeyWebhooks } from './key-webhooks.js';
import { systemLookup, type HostLookup } from './sender.js';
import { HAND_SENDS, WebhookDeliveries } from './webhook-deliveries.js';
import { DynamoWebhookStore } from './webhook-store.js';

export const webhookStore = /* @__PURE__ */ part(() => new DynamoWebhookStore(storeOptions('catalog')));

/** Endpoint secrets sealed under `WEBHOOK_SECRET_KEY`, read on first use (in AWS: loaded at the container's first request). */
export const secretSealer = /* @__PURE__ */ part(() => new AesGcmSealer(() => secret(env(), 'WEBHOOK_SECRET_KEY')));

/** The resolver of webhook URLs' hosts (registration and attempts): the one a test or the local runner gave, else the system's. */
export function hostLookup(): HostLookup {
  return hostLookupOverride() ?? systemLookup;
}

/** Deliveries, in the webhooks table. */
export const deliveryStore = /* @__PURE__ */ part(() => new DynamoDeliveryStore(storeOptions('webhooks')));

/** The queue of delivery attempts: the local runner's, or SQS at `WEBHOOK_DELIVERY_QUEUE_URL`. */
export const deliveryQueue = /* @__PURE__ */ part((): DeliveryQueue => {
  const local = queueOverride('webhook-deliveries');
  if (local) return local as DeliveryQueue;
  const { clock } = coreServices();
  return new SqsDeliveryQueue(required(env(), 'WEBHOOK_DELIVERY_QUEUE_URL'), process.env.AWS_REGION ?? '', () => clock.now());
});

/**
 * An org's deliveries (list, retry, test), for the bearer routes and the MCP tools alike. The queue
 * is reached on first send: a list never builds it.
 */
export const webhookDeliveries = /* @__PURE__ */ part(
  () =>
    new WebhookDeliveries({
      webhooks: webhookStore(),
      deliveries: deliveryStore(),
      queue: { send: (messages) => deliveryQueue().send(messages) },
      clock: coreServices().clock,
      budget: new OrgBudget({ store: budgetStore(), clock: coreServices().clock, policy: HAND_SENDS }),
    }),
);

/** The org's endpoints as API keys manage them (the MCP tools). */
export const keyWebhooks = /* @__PURE__ */ part(
  () =>
    new KeyWebhooks({
      webhooks: webhookStore(),
      sealer: secretSealer(),
      // Block size 1, as key ids and the admins' endpoints (the same sequence): dense and unique across containers.
      webhookIds: new IdAllocator(sequenceStore(), { sequence: 'webhook_id', blockSize: 1 }),
      clock: coreServices().clock,
      deployment: isLocalRun() ? 'local' : 'deployed',
      lookup: hostLookup(),
    }),
);
