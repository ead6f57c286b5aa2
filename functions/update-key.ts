import { adminServices } from '../shared/keys/services.js';
import { api } from '../shared/platform/http/pipeline.js';
import { updateKey } from '../shared/keys/routes/update-key.js';

/** PATCH /api/org-api-keys (bearer; owner or admin of `org_id`); `is_active` revokes or reactivates */
export const handler = api(updateKey, { services: adminServices }, ({ body, admin, call, services }) =>
  services.keyAdmin.update(admin, body, call),
);
