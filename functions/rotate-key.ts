import { adminServices } from '../shared/compose/admin.js';
import { api } from '../shared/http/api.js';
import { rotateKey } from '../shared/operations/rotate-key.js';

/** POST /api/org-api-keys?action=rotate-key (bearer; owner or admin of `org_id`); the new raw key is in this answer only */
export const handler = api(rotateKey, { services: adminServices }, ({ body, admin, call, services }) =>
  services.keyAdmin.rotate(admin, body, call),
);
