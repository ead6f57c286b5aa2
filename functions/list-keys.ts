import { adminServices } from '../shared/compose/admin.js';
import { api } from '../shared/http/api.js';
import { listKeys } from '../shared/operations/list-keys.js';

/** GET /api/org-api-keys?org_id=<id> (bearer; owner or admin of the org) */
export const handler = api(listKeys, { services: adminServices }, ({ query, admin, call, services }) =>
  services.keyAdmin.list(admin, query.org_id, call),
);
