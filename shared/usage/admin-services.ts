/** The usage report and the audit log for org members (bearer); apart from `services.ts`, so that the MCP server carries no JWT verifier. */
import { auditStore } from '../audit/index.js';
import { AdminAccess } from '../catalog/index.js';
import { catalogStore } from '../catalog/index.js';
import type { BearerServices } from '../platform/bearer.js';
import { bearerCore, budgetStore, part, type CoreServices } from '../platform/services.js';
import { AuditLog } from './audit-log.js';
import { ReportBudget } from './report-budget.js';
import { SessionReports } from './reports.js';
import { tokenReportStore, usageRollupReader } from './services.js';
import { Usage } from './usage.js';

/** What the usage function needs. */
export interface UsageServices extends CoreServices, BearerServices {
  readonly usage: Usage;
}

/** The usage part of this container's services. */
export const usageServices = /* @__PURE__ */ part((): UsageServices => {
  const core = bearerCore();
  const { clock, env } = core;
  const reports = new SessionReports({
    store: tokenReportStore(),
    rollups: usageRollupReader(),
    clock,
    tokenRetentionDays: env.TOKEN_RETENTION_DAYS,
  });
  const budget = new ReportBudget({ store: budgetStore(), clock });
  return {
    ...core,
    usage: new Usage({ access: new AdminAccess(catalogStore()), budget, reports }),
  };
});

/** What the audit-log function needs. */
export interface AuditLogServices extends CoreServices, BearerServices {
  readonly auditLog: AuditLog;
}

/** The audit log for org admins (the same environment as key management, `shared/platform/env-parts.ts`). */
export const auditLogServices = /* @__PURE__ */ part((): AuditLogServices => {
  const core = bearerCore();
  return {
    ...core,
    auditLog: new AuditLog({ access: new AdminAccess(catalogStore()), reader: auditStore() }),
  };
});
