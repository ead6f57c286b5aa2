import { adminServices } from '../shared/compose/admin.js';
import { api } from '../shared/http/api.js';
import { UpdateKeyBody } from '../shared/schemas/keys.js';

/** PATCH /api/org-api-keys (bearer; owner or admin of `org_id`); `is_active` revokes or reactivates */
export const handler = api({ operation: 'update-key', services: adminServices, body: UpdateKeyBody }, ({ body, admin, call, services }) =>
  services.keyAdmin.update(admin, body, call),
);
