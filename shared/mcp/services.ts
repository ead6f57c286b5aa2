/** The MCP server's part: create-session's part (sessions with idempotency), and the catalog, report and webhook tools' domain. */
import { OrgCatalog } from '../catalog/index.js';
import { ReportBudget } from '../usage/index.js';
import { SessionReports } from '../usage/index.js';
import { budgetStore, part } from '../platform/services.js';
import { idempotencyServices, type IdempotencyServices } from '../keys/index.js';
import { sessionServices, type SessionServices } from '../sessions/index.js';
import { catalogStore } from '../catalog/index.js';
import { tokenReportStore, usageRollupReader } from '../usage/index.js';
import { keyWebhooks, webhookDeliveries, type KeyWebhooks, type WebhookDeliveries } from '../webhooks/index.js';

/** What the MCP function needs. */
export interface McpServices extends SessionServices, IdempotencyServices {
  /** An organization's own games and streams (the catalog tools). */
  readonly orgCatalog: OrgCatalog;
  /** Session reports (the report tool). */
  readonly reports: SessionReports;
  /** The organizations' report budgets, shared with REST `usage` (the report tool). */
  readonly reportBudget: ReportBudget;
  /** The organization's webhook endpoints (the webhook tools). */
  readonly keyWebhooks: KeyWebhooks;
  /** Their deliveries (list, retry). */
  readonly webhookDeliveries: WebhookDeliveries;
}

/** The MCP part of this container's services. */
export const mcpServices = /* @__PURE__ */ part((): McpServices => {
  const sessions = { ...sessionServices(), ...idempotencyServices() };
  const { clock, env } = sessions;
  return {
    ...sessions,
    orgCatalog: new OrgCatalog(catalogStore()),
    reports: new SessionReports({
      store: tokenReportStore(),
      rollups: usageRollupReader(),
      clock,
      tokenRetentionDays: env.TOKEN_RETENTION_DAYS,
    }),
    reportBudget: new ReportBudget({ store: budgetStore(), clock }),
    keyWebhooks: keyWebhooks(),
    webhookDeliveries: webhookDeliveries(),
  };
});
