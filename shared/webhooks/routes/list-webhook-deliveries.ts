import { ListWebhookDeliveriesQuery, WebhookDeliveryPage } from '../schemas.js';
import { API_PATH, defineOperation } from '../../platform/route.js';
import { webhookDeliveryAdminServices } from '../admin-services.js';
import { api } from '../../platform/http/pipeline.js';

/** list-webhook-deliveries: an org owner or admin lists an endpoint's deliveries, newest first, with their attempts (bearer, any tier). */
export const listWebhookDeliveries = defineOperation({
  operation: 'list-webhook-deliveries',
  function: 'list-webhook-deliveries',
  // catalog GetItem: membership, org and the endpoint; webhooks Query: the endpoint's partition, backwards.
  data: { catalog: ['GetItem'], webhooks: ['Query'], audit: ['PutItem'] },
  parts: ['webhookDeliveries'],
  method: 'GET',
  path: API_PATH,
  action: 'list-webhook-deliveries',
  auth: 'bearer',
  capacity: 'admin',
  summary: 'List the deliveries of a webhook endpoint, newest first, with their attempts and response codes (kept 30 days)',
  query: ListWebhookDeliveriesQuery,
  response: WebhookDeliveryPage,
  errors: [404],
});

/** GET /api/org-api-keys?action=list-webhook-deliveries&org_id=<id>&webhook_id=<id>[&cursor=][&limit=] (bearer; owner or admin of the org) */
export const handler = /* @__PURE__ */ api(
  listWebhookDeliveries,
  { services: webhookDeliveryAdminServices },
  ({ query, admin, call, services }) => services.webhookDeliveryAdmin.list(admin, query, call),
);
