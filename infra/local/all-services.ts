/**
 * Every part of the services together, for what runs the whole service in one process: the local
 * runner, its seed and the tests. A Lambda function never imports this: it names the part it needs
 * (each feature's `services.ts`), so its bundle carries only that part's code.
 */
import { auditStore } from '../../shared/audit/services.js';
import { catalogStore } from '../../shared/catalog/services.js';
import { adminServices, type AdminServices } from '../../shared/keys/admin-services.js';
import { counterStore, keyStore } from '../../shared/keys/services.js';
import { mcpServices, type McpServices } from '../../shared/mcp/services.js';
import { part, sequenceStore } from '../../shared/platform/services.js';
import { playServices, type PlayServices } from '../../shared/play/services.js';
import { tokenStore } from '../../shared/sessions/services.js';
import { auditLogServices, type AuditLogServices } from '../../shared/usage/admin-services.js';
import { tokenReportStore } from '../../shared/usage/services.js';
import { webhookAdminServices, type WebhookAdminServices } from '../../shared/webhooks/admin-services.js';
import { webhookStore } from '../../shared/webhooks/services.js';

export { overrideServices, type ServiceOverrides } from '../../shared/platform/services.js';

/** Everything the functions use, and the store adapters (seeding, tests). */
export type Services = McpServices &
  AdminServices &
  AuditLogServices &
  WebhookAdminServices &
  PlayServices & {
    readonly stores: {
      readonly tokens: ReturnType<typeof tokenStore>;
      readonly keys: ReturnType<typeof keyStore>;
      readonly catalog: ReturnType<typeof catalogStore>;
      readonly counters: ReturnType<typeof counterStore>;
      readonly sequences: ReturnType<typeof sequenceStore>;
      readonly audit: ReturnType<typeof auditStore>;
      readonly tokenReports: ReturnType<typeof tokenReportStore>;
      readonly webhooks: ReturnType<typeof webhookStore>;
    };
  };

/** All the services of this process, built on first use (and again after `overrideServices`). */
export const services = part((): Services => ({
  ...mcpServices(),
  ...adminServices(),
  ...auditLogServices(),
  ...webhookAdminServices(),
  ...playServices(),
  stores: {
    tokens: tokenStore(),
    keys: keyStore(),
    catalog: catalogStore(),
    counters: counterStore(),
    sequences: sequenceStore(),
    audit: auditStore(),
    tokenReports: tokenReportStore(),
    webhooks: webhookStore(),
  },
}));
