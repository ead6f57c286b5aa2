import { adminServices } from '../shared/compose/admin.js';
import { api } from '../shared/http/api.js';
import { DeleteKeyQuery } from '../shared/schemas/keys.js';

/** DELETE /api/org-api-keys?id=<key_id>&org_id=<id> (bearer; owner or admin of the org) */
export const handler = api(
  { operation: 'delete-key', services: adminServices, query: DeleteKeyQuery },
  ({ query, admin, call, services }) => services.keyAdmin.remove(admin, query.org_id, query.id, call),
);
