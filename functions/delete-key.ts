import { adminServices } from '../shared/keys/services.js';
import { api } from '../shared/platform/http/pipeline.js';
import { deleteKey } from '../shared/keys/routes/delete-key.js';

/** DELETE /api/org-api-keys?id=<key_id>&org_id=<id> (bearer; owner or admin of the org) */
export const handler = api(deleteKey, { services: adminServices }, ({ query, admin, call, services }) =>
  services.keyAdmin.remove(admin, query.org_id, query.id, call),
);
