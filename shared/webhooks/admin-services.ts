/** Webhook endpoint management for org owners and admins (bearer): apart from `services.ts`, as key management is. */
import { auditStore } from '../audit/index.js';
import { AdminAccess, catalogStore } from '../catalog/index.js';
import type { BearerServices } from '../platform/bearer.js';
import { IdAllocator } from '../platform/ids.js';
import { logger } from '../platform/observability.js';
import { bearerCore, isLocalRun, part, sequenceStore, type CoreServices } from '../platform/services.js';
import { hostLookup, secretSealer, webhookDeliveries, webhookStore } from './services.js';
import { WebhookDeliveryAdmin } from './webhook-delivery-admin.js';
import { WebhookAdmin } from './webhook-admin.js';

/** What the webhook-management functions need. */
export interface WebhookAdminServices extends CoreServices, BearerServices {
  readonly webhookAdmin: WebhookAdmin;
}

/** The webhook-management part of this container's services. */
export const webhookAdminServices = /* @__PURE__ */ part((): WebhookAdminServices => {
  const core = bearerCore();
  const { clock, env } = core;
  const webhookAdmin = new WebhookAdmin({
    access: new AdminAccess(catalogStore()),
    webhooks: webhookStore(),
    sealer: secretSealer(),
    audit: auditStore(),
    // Block size 1, as key ids: dense and unique across containers.
    webhookIds: new IdAllocator(sequenceStore(), { sequence: 'webhook_id', blockSize: 1 }),
    clock,
    deployment: isLocalRun() ? 'local' : 'deployed',
    lookup: hostLookup(),
    auditRetentionDays: env.AUDIT_RETENTION_DAYS,
    onBackgroundError: (error, what) => logger.error(`write failed after the change took effect: ${what}`, { error: error as Error }),
  });
  return { ...core, webhookAdmin };
});

/** What the deliveries' functions need (list, retry, test). */
export interface WebhookDeliveryAdminServices extends CoreServices, BearerServices {
  readonly webhookDeliveryAdmin: WebhookDeliveryAdmin;
}

/** The deliveries' part of this container's services: no secret (they sign nothing; the delivery worker does). */
export const webhookDeliveryAdminServices = /* @__PURE__ */ part((): WebhookDeliveryAdminServices => {
  const core = bearerCore();
  const { clock, env } = core;
  const webhookDeliveryAdmin = new WebhookDeliveryAdmin({
    access: new AdminAccess(catalogStore()),
    deliveries: webhookDeliveries(),
    audit: auditStore(),
    clock,
    auditRetentionDays: env.AUDIT_RETENTION_DAYS,
    onBackgroundError: (error, what) => logger.error(`write failed after the change took effect: ${what}`, { error: error as Error }),
  });
  return { ...core, webhookDeliveryAdmin };
});
