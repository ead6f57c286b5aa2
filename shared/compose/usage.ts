/** The usage part for org members (bearer): the session report with refused calls. */
import { createBearerVerifier } from '../auth/jwt.js';
import { AdminAccess } from '../domain/admin-access.js';
import { ReportBudget } from '../domain/report-budget.js';
import { SessionReports } from '../domain/reports.js';
import { Usage } from '../domain/usage.js';
import type { BearerServices } from './admin.js';
import { coreServices, part, type CoreServices } from './base.js';
import { catalogStore, counterStore, tokenReportStore, usageRollupReader } from './stores.js';

/** What the usage function needs. */
export interface UsageServices extends CoreServices, BearerServices {
  readonly usage: Usage;
}

/** The usage part of this container's services. */
export const usageServices = /* @__PURE__ */ part((): UsageServices => {
  const core = coreServices();
  const { clock, env } = core;
  const reports = new SessionReports({
    store: tokenReportStore(),
    rollups: usageRollupReader(),
    clock,
    tokenRetentionDays: env.TOKEN_RETENTION_DAYS,
  });
  const budget = new ReportBudget({ store: counterStore(), clock });
  return { ...core, bearer: createBearerVerifier(env), usage: new Usage({ access: new AdminAccess(catalogStore()), budget, reports }) };
});
