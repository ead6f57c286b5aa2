import { adminServices } from '../shared/compose/admin.js';
import { api } from '../shared/http/api.js';
import { RotateKeyBody } from '../shared/schemas/keys.js';

/** POST /api/org-api-keys?action=rotate-key (bearer; owner or admin of `org_id`); the new raw key is in this answer only */
export const handler = api({ operation: 'rotate-key', services: adminServices, body: RotateKeyBody }, ({ body, admin, call, services }) =>
  services.keyAdmin.rotate(admin, body, call),
);
