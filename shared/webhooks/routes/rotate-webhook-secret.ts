import { RotatedWebhookSecret, RotateWebhookSecretBody } from '../schemas.js';
import { API_PATH, defineOperation } from '../../platform/route.js';
import { webhookAdminServices } from '../admin-services.js';
import { api } from '../../platform/http/pipeline.js';

/**
 * rotate-webhook-secret: an org owner or admin replaces an endpoint's signing secret (bearer); the
 * previous one signs beside it for 24 hours. One conditional write (only if the secret is still the
 * one read), beside its audit record.
 */
export const rotateWebhookSecret = defineOperation({
  operation: 'rotate-webhook-secret',
  function: 'rotate-webhook-secret',
  data: { catalog: ['GetItem', 'UpdateItem'], audit: ['PutItem'] },
  parts: ['webhooks'],
  method: 'POST',
  path: API_PATH,
  action: 'rotate-webhook-secret',
  auth: 'bearer',
  capacity: 'admin',
  summary: 'Rotate a webhook endpoint’s signing secret: for 24 hours deliveries carry signatures with both',
  body: RotateWebhookSecretBody,
  response: RotatedWebhookSecret,
  errors: [404, 409],
});

/** POST /api/org-api-keys?action=rotate-webhook-secret (bearer; owner or admin of `org_id`); the new secret is in this answer only */
export const handler = /* @__PURE__ */ api(rotateWebhookSecret, { services: webhookAdminServices }, ({ body, admin, call, services }) =>
  services.webhookAdmin.rotate(admin, body, call),
);
