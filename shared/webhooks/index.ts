/** The webhooks feature as other features see it: import it from here, never from its files (eslint.config.js). */
export { createWebhook } from './routes/create-webhook.js';
export { deleteWebhook } from './routes/delete-webhook.js';
export { listWebhookDeliveries } from './routes/list-webhook-deliveries.js';
export { listWebhooks } from './routes/list-webhooks.js';
export { recoverWebhook } from './routes/recover-webhook.js';
export { retryWebhookDelivery } from './routes/retry-webhook-delivery.js';
export { rotateWebhookSecret } from './routes/rotate-webhook-secret.js';
export { testWebhook } from './routes/test-webhook.js';
export { updateWebhook } from './routes/update-webhook.js';
export { webhookDeliveryWorker } from './workers/webhook-delivery.js';
export { webhookDueWorker } from './workers/webhook-due.js';
export { webhookEventsWorker } from './workers/webhook-events.js';
export { KeyWebhooks } from './key-webhooks.js';
export { WebhookDeliveries } from './webhook-deliveries.js';
export { keyWebhooks, webhookDeliveries } from './services.js';
export { SubscribedEvents } from './events.js';
export {
  DeliveryAttemptInline,
  DeliveryId,
  Description,
  deliveryViewFields,
  GivenFilter,
  recoveryResultFields,
  recoveryWindowFields,
  Secret,
  Url,
  WebhookViewFields,
  windowInOrder,
} from './schemas.js';
export type { WebhookDelivery } from './schemas.js';
export { endpointDiff } from './endpoints.js';
export { deliveryNotFound, webhookNotFound } from './refusals.js';
