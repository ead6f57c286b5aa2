import { adminServices } from '../shared/compose/admin.js';
import { api } from '../shared/http/api.js';
import { ListKeysQuery } from '../shared/schemas/keys.js';

/** GET /api/org-api-keys?org_id=<id> (bearer; owner or admin of the org) */
export const handler = api({ operation: 'list-keys', services: adminServices, query: ListKeysQuery }, ({ query, admin, call, services }) =>
  services.keyAdmin.list(admin, query.org_id, call),
);
