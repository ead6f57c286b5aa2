/** The catalog's parts for org members (bearer): games and streams, and the org picker; apart from `services.ts`, so that no API-key function carries the JWT verifier. */
import { AdminAudit, auditStore } from '../audit/index.js';
import type { BearerServices } from '../platform/bearer.js';
import { logger } from '../platform/observability.js';
import { bearerCore, part, type CoreServices } from '../platform/services.js';
import { AdminAccess } from './admin-access.js';
import { CatalogAdmin } from './catalog-admin.js';
import { Memberships } from './memberships.js';
import { OrgCatalog } from './org-catalog.js';
import { catalogStore } from './services.js';

/** What the list-games, update-game and update-stream functions need. */
export interface CatalogAdminServices extends CoreServices, BearerServices {
  readonly catalogAdmin: CatalogAdmin;
}

/** The games-and-streams part of this container's services. */
export const catalogAdminServices = /* @__PURE__ */ part((): CatalogAdminServices => {
  const core = bearerCore();
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
  return { ...core, catalogAdmin };
});

/** What the list-orgs function needs. */
export interface OrgsServices extends CoreServices, BearerServices {
  readonly memberships: Memberships;
}

/** The org-picker part of this container's services. */
export const orgsServices = /* @__PURE__ */ part((): OrgsServices => {
  const core = bearerCore();
  return { ...core, memberships: new Memberships(catalogStore()) };
});
