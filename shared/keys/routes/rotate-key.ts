import { RotatedApiKey, RotateKeyBody } from '../schemas.js';
import { API_PATH, defineOperation } from '../../platform/route.js';
import { adminServices } from '../admin-services.js';
import { api } from '../../platform/http/pipeline.js';

/**
 * rotate-key: an org admin replaces an API key (bearer). It reads the key, the membership and a new
 * key id together, then writes the new key, the old key's retirement and the audit record together;
 * a failed write is taken back (DeleteItem). The new key is written in one transaction with a check
 * of its org's tier (catalog ConditionCheckItem: shared/keys/org-tiers.ts).
 */
export const rotateKey = defineOperation({
  operation: 'rotate-key',
  function: 'rotate-key',
  data: {
    catalog: ['GetItem', 'ConditionCheckItem'],
    counters: ['UpdateItem'],
    keys: ['GetItem', 'PutItem', 'UpdateItem', 'DeleteItem'],
    audit: ['PutItem'],
  },
  parts: ['admin'],
  method: 'POST',
  path: API_PATH,
  action: 'rotate-key',
  auth: 'bearer',
  capacity: 'admin',
  summary: 'Rotate an API key: a new key with the same settings; the old one works for a grace period',
  body: RotateKeyBody,
  response: RotatedApiKey,
  errors: [404, 409],
});

/** POST /api/org-api-keys?action=rotate-key (bearer; owner or admin of `org_id`); the new raw key is in this answer only */
export const handler = /* @__PURE__ */ api(rotateKey, { services: adminServices }, ({ body, admin, call, services }) =>
  services.keyAdmin.rotate(admin, body, call),
);
