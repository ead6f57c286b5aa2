import { CreatedWebhook, CreateWebhookBody } from '../schemas.js';
import { API_PATH, defineOperation } from '../../platform/route.js';
import { webhookAdminServices } from '../admin-services.js';
import { api } from '../../platform/http/pipeline.js';

/** create-webhook: an org owner or admin registers an endpoint (bearer); the change is written with its audit record. */
export const createWebhook = defineOperation({
  operation: 'create-webhook',
  function: 'create-webhook',
  // catalog GetItem: membership and org; one transaction: the org's endpoint count (UpdateItem, at
  // most 20) and the endpoint (PutItem). counters UpdateItem: the webhook id.
  data: { catalog: ['GetItem', 'UpdateItem', 'PutItem'], counters: ['UpdateItem'], audit: ['PutItem'] },
  parts: ['webhooks'],
  method: 'POST',
  path: API_PATH,
  action: 'create-webhook',
  auth: 'bearer',
  capacity: 'admin',
  summary: 'Register a webhook endpoint; its signing secret is returned once',
  body: CreateWebhookBody,
  response: CreatedWebhook,
  // The organization already has 20 endpoints.
  errors: [409],
});

/** POST /api/org-api-keys?action=create-webhook (bearer; owner or admin of `org_id`); the secret is in this answer only */
export const handler = /* @__PURE__ */ api(createWebhook, { services: webhookAdminServices }, ({ body, admin, call, services }) =>
  services.webhookAdmin.create(admin, body, call),
);
