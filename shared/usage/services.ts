/** The usage part for org members (bearer): the session report with refused calls. */
import { createBearerVerifier } from '../platform/bearer.js';
import { AdminAccess } from '../catalog/admin-access.js';
import { ReportBudget } from './report-budget.js';
import { SessionReports } from './reports.js';
import { Usage } from './usage.js';
import type { BearerServices } from '../keys/services.js';
import { bearerOptions, coreServices, part, type CoreServices } from '../platform/services.js';
import { catalogStore, counterStore, tokenReportStore, usageRollupReader } from '../platform/stores.js';

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
  return {
    ...core,
    bearer: createBearerVerifier(env, bearerOptions()),
    usage: new Usage({ access: new AdminAccess(catalogStore()), budget, reports }),
  };
});
