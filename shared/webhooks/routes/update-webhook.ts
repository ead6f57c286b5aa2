import { UpdateWebhookBody, WebhookView } from '../schemas.js';
import { API_PATH, defineOperation } from '../../platform/route.js';
import { webhookAdminServices } from '../admin-services.js';
import { api } from '../../platform/http/pipeline.js';

/** update-webhook: an org owner or admin changes an endpoint (bearer); the change is written with its audit record. */
export const updateWebhook = defineOperation({
  operation: 'update-webhook',
  function: 'update-webhook',
  data: { catalog: ['GetItem', 'UpdateItem'], audit: ['PutItem'] },
  parts: ['webhooks'],
  method: 'PATCH',
  path: API_PATH,
  action: 'update-webhook',
  auth: 'bearer',
  capacity: 'admin',
  summary: 'Change a webhook endpoint: its URL, event types, description, or pause it (is_active)',
  body: UpdateWebhookBody,
  response: WebhookView,
  errors: [404],
});

/** PATCH /api/org-api-keys?action=update-webhook (bearer; owner or admin of `org_id`) */
export const handler = /* @__PURE__ */ api(updateWebhook, { services: webhookAdminServices }, ({ body, admin, call, services }) =>
  services.webhookAdmin.update(admin, body, call),
);
