import { adminServices } from '../shared/compose/admin.js';
import { api } from '../shared/http/api.js';
import { updateKey } from '../shared/operations/update-key.js';

/** PATCH /api/org-api-keys (bearer; owner or admin of `org_id`); `is_active` revokes or reactivates */
export const handler = api(updateKey, { services: adminServices }, ({ body, admin, call, services }) =>
  services.keyAdmin.update(admin, body, call),
);
