import * as z from 'zod/mini';
import { ListWebhooksQuery, WebhookView } from '../schemas.js';
import { API_PATH, defineOperation } from '../../platform/route.js';
import { webhookAdminServices } from '../admin-services.js';
import { api } from '../../platform/http/pipeline.js';

/** list-webhooks: an org owner or admin lists the organization's endpoints (bearer), never a secret. */
export const listWebhooks = defineOperation({
  operation: 'list-webhooks',
  function: 'list-webhooks',
  data: { catalog: ['GetItem', 'Query'], audit: ['PutItem'] },
  parts: ['webhooks'],
  method: 'GET',
  path: API_PATH,
  action: 'list-webhooks',
  auth: 'bearer',
  capacity: 'admin',
  summary: 'List the webhook endpoints of an organization (never a secret)',
  query: ListWebhooksQuery,
  response: z.array(WebhookView),
});

/** GET /api/org-api-keys?action=list-webhooks&org_id=<id> (bearer; owner or admin of the org) */
export const handler = /* @__PURE__ */ api(listWebhooks, { services: webhookAdminServices }, ({ query, admin, call, services }) =>
  services.webhookAdmin.list(admin, query.org_id, call),
);
