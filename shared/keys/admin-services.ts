/** Key administration for org admins (bearer): apart from `services.ts`, so that no API-key function carries the JWT verifier. */
import { auditStore } from '../audit/index.js';
import { AdminAccess } from '../catalog/index.js';
import { catalogStore } from '../catalog/index.js';
import type { BearerServices } from '../platform/bearer.js';
import { IdAllocator } from '../platform/ids.js';
import { logger } from '../platform/observability.js';
import { bearerCore, part, sequenceStore, type CoreServices } from '../platform/services.js';
import { KeyAdmin } from './key-admin.js';
import { keyStore } from './services.js';

/** What the key-management functions need. */
export interface AdminServices extends CoreServices, BearerServices {
  readonly keyAdmin: KeyAdmin;
}

/** The key-management part of this container's services. */
export const adminServices = /* @__PURE__ */ part((): AdminServices => {
  const core = bearerCore();
  const { clock, env } = core;
  const keyAdmin = new KeyAdmin({
    access: new AdminAccess(catalogStore()),
    keys: keyStore(),
    audit: auditStore(),
    // Block size 1, as the seed uses: key ids stay dense and unique across containers.
    keyIds: new IdAllocator(sequenceStore(), { sequence: 'key_id', blockSize: 1 }),
    clock,
    auditRetentionDays: env.AUDIT_RETENTION_DAYS,
    onBackgroundError: (error, what) => logger.error(`write failed after the change took effect: ${what}`, { error: error as Error }),
  });
  return { ...core, keyAdmin };
});
