import { adminServices } from '../shared/compose/admin.js';
import { api } from '../shared/http/api.js';
import { createKey } from '../shared/operations/create-key.js';

/** POST /api/org-api-keys (bearer; owner or admin of `org_id`); the raw key is in this answer only */
export const handler = api(createKey, { services: adminServices }, ({ body, admin, call, services }) =>
  services.keyAdmin.create(admin, body, call),
);
