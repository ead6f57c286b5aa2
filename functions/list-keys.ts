import { adminServices } from '../shared/keys/services.js';
import { api } from '../shared/platform/http/pipeline.js';
import { listKeys } from '../shared/keys/routes/list-keys.js';

/** GET /api/org-api-keys?org_id=<id> (bearer; owner or admin of the org) */
export const handler = api(listKeys, { services: adminServices }, ({ query, admin, call, services }) =>
  services.keyAdmin.list(admin, query.org_id, call),
);
