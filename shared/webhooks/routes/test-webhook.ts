import { TestWebhookBody, WebhookDelivery } from '../schemas.js';
import { API_PATH, defineOperation } from '../../platform/route.js';
import { webhookDeliveryAdminServices } from '../admin-services.js';
import { api } from '../../platform/http/pipeline.js';

/**
 * test-webhook: an org owner or admin sends a `webhook.test` event to one endpoint, whatever event
 * types it subscribes to (bearer, Business or higher): a delivery of its own, queued now.
 */
export const testWebhook = defineOperation({
  operation: 'test-webhook',
  function: 'test-webhook',
  // catalog GetItem: membership, org and the endpoint; counters UpdateItem: the org's hand sends;
  // webhooks PutItem: the delivery (conditional).
  data: { catalog: ['GetItem'], webhooks: ['PutItem'], counters: ['UpdateItem'], audit: ['PutItem'] },
  sendsTo: ['webhook-deliveries'],
  parts: ['webhookDeliveries'],
  method: 'POST',
  path: API_PATH,
  action: 'test-webhook',
  auth: 'bearer',
  capacity: 'admin',
  summary: 'Send a webhook.test event to a webhook endpoint (whatever event types it subscribes to)',
  body: TestWebhookBody,
  response: WebhookDelivery,
  // 409: the endpoint is paused; 429: the org's hand sends are spent.
  errors: [404, 409, 429],
});

/** POST /api/org-api-keys?action=test-webhook (bearer; owner or admin of `org_id`) */
export const handler = /* @__PURE__ */ api(testWebhook, { services: webhookDeliveryAdminServices }, ({ body, admin, call, services }) =>
  services.webhookDeliveryAdmin.test(admin, body, call),
);
