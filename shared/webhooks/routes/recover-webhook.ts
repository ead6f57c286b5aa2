import { RecoverWebhookBody, WebhookRecovery } from '../schemas.js';
import { API_PATH, defineOperation } from '../../platform/route.js';
import { webhookDeliveryAdminServices } from '../admin-services.js';
import { api } from '../../platform/http/pipeline.js';

/**
 * recover-webhook: an org owner or admin has every event of a window that an endpoint has not
 * received with a 2xx sent again (bearer, Business or higher), with the same `webhook-id`s, at the
 * endpoint's normal pace; or, with `dry_run`, counts them (docs/webhooks.md#recovery).
 */
export const recoverWebhook = defineOperation({
  operation: 'recover-webhook',
  function: 'recover-webhook',
  // catalog GetItem: membership, org and the endpoint; counters UpdateItem: the org's hand sends;
  // webhooks Query: the endpoint's deliveries of the window (no write: the worker claims each attempt).
  data: { catalog: ['GetItem'], webhooks: ['Query'], counters: ['UpdateItem'], audit: ['PutItem'] },
  sendsTo: ['webhook-deliveries'],
  parts: ['webhookDeliveries'],
  method: 'POST',
  path: API_PATH,
  action: 'recover-webhook',
  auth: 'bearer',
  capacity: 'admin',
  summary: 'Send again every event of a window that a webhook endpoint has not received with a 2xx (same webhook-id), or count them',
  body: RecoverWebhookBody,
  response: WebhookRecovery,
  // 409: the endpoint is paused (a dry run is answered); 429: the org's hand sends are spent.
  errors: [404, 409, 429],
});

/** POST /api/org-api-keys?action=recover-webhook (bearer; owner or admin of `org_id`) */
export const handler = /* @__PURE__ */ api(recoverWebhook, { services: webhookDeliveryAdminServices }, ({ body, admin, call, services }) =>
  services.webhookDeliveryAdmin.recover(admin, body, call),
);
