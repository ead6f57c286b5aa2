import { adminServices } from '../shared/compose/admin.js';
import { api } from '../shared/http/api.js';
import { deleteKey } from '../shared/operations/delete-key.js';

/** DELETE /api/org-api-keys?id=<key_id>&org_id=<id> (bearer; owner or admin of the org) */
export const handler = api(deleteKey, { services: adminServices }, ({ query, admin, call, services }) =>
  services.keyAdmin.remove(admin, query.org_id, query.id, call),
);
