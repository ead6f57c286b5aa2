/** The games-and-streams part for org members (bearer): list, and change a game's or stream's settings. */
import { createBearerVerifier } from '../platform/bearer.js';
import { AdminAccess } from './admin-access.js';
import { AdminAudit } from '../audit/admin-audit.js';
import { CatalogAdmin } from './catalog-admin.js';
import { OrgCatalog } from './org-catalog.js';
import { logger } from '../platform/observability/logger.js';
import type { BearerServices } from '../keys/services.js';
import { bearerOptions, coreServices, part, type CoreServices } from '../platform/services.js';
import { auditStore, catalogStore } from '../platform/stores.js';

/** What the list-games, update-game and update-stream functions need. */
export interface CatalogAdminServices extends CoreServices, BearerServices {
  readonly catalogAdmin: CatalogAdmin;
}

/** The games-and-streams part of this container's services. */
export const catalogAdminServices = /* @__PURE__ */ part((): CatalogAdminServices => {
  const core = coreServices();
  const { clock, env } = core;
  const audit = new AdminAudit({
    audit: auditStore(),
    clock,
    auditRetentionDays: env.AUDIT_RETENTION_DAYS,
    onBackgroundError: (error, what) => logger.error(`write failed after the change took effect: ${what}`, { error: error as Error }),
  });
  const catalogAdmin = new CatalogAdmin({
    access: new AdminAccess(catalogStore()),
    catalog: new OrgCatalog(catalogStore()),
    audit,
    baseUrl: env.PUBLIC_BASE_URL.replace(/\/+$/, ''),
  });
  return { ...core, bearer: createBearerVerifier(env, bearerOptions()), catalogAdmin };
});
