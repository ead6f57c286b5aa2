import { adminServices } from '../shared/keys/services.js';
import { api } from '../shared/platform/http/pipeline.js';
import { rotateKey } from '../shared/keys/routes/rotate-key.js';

/** POST /api/org-api-keys?action=rotate-key (bearer; owner or admin of `org_id`); the new raw key is in this answer only */
export const handler = api(rotateKey, { services: adminServices }, ({ body, admin, call, services }) =>
  services.keyAdmin.rotate(admin, body, call),
);
