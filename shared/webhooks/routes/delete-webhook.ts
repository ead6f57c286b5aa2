import { DeletedWebhook, DeleteWebhookQuery } from '../schemas.js';
import { API_PATH, defineOperation } from '../../platform/route.js';
import { webhookAdminServices } from '../admin-services.js';
import { api } from '../../platform/http/pipeline.js';

/** delete-webhook: an org owner or admin deletes an endpoint (bearer); the change is written with its audit record. */
export const deleteWebhook = defineOperation({
  operation: 'delete-webhook',
  function: 'delete-webhook',
  // One transaction: the endpoint (DeleteItem) and the org's endpoint count (UpdateItem).
  data: { catalog: ['GetItem', 'DeleteItem', 'UpdateItem'], audit: ['PutItem'] },
  parts: ['webhooks'],
  method: 'DELETE',
  path: API_PATH,
  action: 'delete-webhook',
  auth: 'bearer',
  capacity: 'admin',
  summary: 'Delete a webhook endpoint',
  query: DeleteWebhookQuery,
  response: DeletedWebhook,
  errors: [404],
});

/** DELETE /api/org-api-keys?action=delete-webhook&id=<id>&org_id=<id> (bearer; owner or admin of the org) */
export const handler = /* @__PURE__ */ api(deleteWebhook, { services: webhookAdminServices }, ({ query, admin, call, services }) =>
  services.webhookAdmin.remove(admin, query.org_id, query.id, call),
);
