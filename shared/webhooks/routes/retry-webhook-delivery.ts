import { RetryWebhookDeliveryBody, WebhookDelivery } from '../schemas.js';
import { API_PATH, defineOperation } from '../../platform/route.js';
import { webhookDeliveryAdminServices } from '../admin-services.js';
import { api } from '../../platform/http/pipeline.js';

/**
 * retry-webhook-delivery: an org owner or admin asks for a new attempt of a delivery now (bearer,
 * Business or higher): the delivery is made due and its message queued for the delivery worker.
 */
export const retryWebhookDelivery = defineOperation({
  operation: 'retry-webhook-delivery',
  function: 'retry-webhook-delivery',
  // catalog GetItem: membership, org and the endpoint; webhooks GetItem: the delivery; counters
  // UpdateItem: the org's hand sends; then webhooks UpdateItem: due now (compare-and-swap).
  data: { catalog: ['GetItem'], webhooks: ['GetItem', 'UpdateItem'], counters: ['UpdateItem'], audit: ['PutItem'] },
  sendsTo: ['webhook-deliveries'],
  parts: ['webhookDeliveries'],
  method: 'POST',
  path: API_PATH,
  action: 'retry-webhook-delivery',
  auth: 'bearer',
  capacity: 'admin',
  summary: 'Attempt a webhook delivery again now, unless an attempt is already due or under way (same webhook-id: receivers drop repeats)',
  body: RetryWebhookDeliveryBody,
  response: WebhookDelivery,
  // 409: the endpoint is paused, or an attempt is due or under way; 429: the org's hand sends are spent.
  errors: [404, 409, 429],
});

/** POST /api/org-api-keys?action=retry-webhook-delivery (bearer; owner or admin of `org_id`) */
export const handler = /* @__PURE__ */ api(
  retryWebhookDelivery,
  { services: webhookDeliveryAdminServices },
  ({ body, admin, call, services }) => services.webhookDeliveryAdmin.retry(admin, body, call),
);
