import { adminServices } from '../shared/keys/services.js';
import { api } from '../shared/platform/http/pipeline.js';
import { createKey } from '../shared/keys/routes/create-key.js';

/** POST /api/org-api-keys (bearer; owner or admin of `org_id`); the raw key is in this answer only */
export const handler = api(createKey, { services: adminServices }, ({ body, admin, call, services }) =>
  services.keyAdmin.create(admin, body, call),
);
