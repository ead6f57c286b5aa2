/** The key-management part: admins' bearer tokens, key administration and the audit log. */
import { createBearerVerifier, type BearerVerifier } from '../platform/bearer.js';
import { AdminAccess } from '../catalog/admin-access.js';
import { AuditLog } from '../usage/audit-log.js';
import { BlockIdAllocator } from '../platform/ids.js';
import { KeyAdmin } from './key-admin.js';
import { logger } from '../platform/observability/logger.js';
import { bearerOptions, coreServices, part, type CoreServices } from '../platform/services.js';
import { auditStore, catalogStore, counterStore, keyStore } from '../platform/stores.js';

/** What a bearer-authenticated operation needs to authenticate its caller. */
export interface BearerServices {
  /** Verifies admins' bearer tokens; built once per container, so the JWKS is fetched once. */
  readonly bearer: BearerVerifier;
}

/** What the audit-log function needs. */
export interface AuditLogServices extends CoreServices, BearerServices {
  readonly auditLog: AuditLog;
}

/** What the key-management functions need. */
export interface AdminServices extends AuditLogServices {
  readonly keyAdmin: KeyAdmin;
}

/**
 * The audit log alone, of the same part (the same environment, `shared/platform/env-parts.ts`): the
 * audit-log function's bundle carries no key administration (issue 25: bundles at most 300 KB).
 */
export const auditLogServices = /* @__PURE__ */ part((): AuditLogServices => {
  const core = coreServices();
  return {
    ...core,
    bearer: createBearerVerifier(core.env, bearerOptions()),
    auditLog: new AuditLog({ access: new AdminAccess(catalogStore()), reader: auditStore() }),
  };
});

/** The key-management part of this container's services. */
export const adminServices = /* @__PURE__ */ part((): AdminServices => {
  const core = coreServices();
  const { clock, env } = core;
  const access = new AdminAccess(catalogStore());
  const keyAdmin = new KeyAdmin({
    access,
    keys: keyStore(),
    audit: auditStore(),
    // Block size 1, as the seed uses: key ids stay dense and unique across containers.
    keyIds: new BlockIdAllocator(counterStore(), 'key_id', 1),
    clock,
    auditRetentionDays: env.AUDIT_RETENTION_DAYS,
    onBackgroundError: (error, what) => logger.error(`write failed after the change took effect: ${what}`, { error: error as Error }),
  });
  return {
    ...core,
    bearer: createBearerVerifier(env, bearerOptions()),
    keyAdmin,
    auditLog: new AuditLog({ access, reader: auditStore() }),
  };
});
