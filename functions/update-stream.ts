import { catalogAdminServices } from '../shared/compose/catalog-admin.js';
import { api } from '../shared/http/api.js';
import { updateStream } from '../shared/operations/update-stream.js';

/** PATCH /api/org-api-keys?action=update-stream (bearer; owner, admin or editor of `org_id`) */
export const handler = api(updateStream, { services: catalogAdminServices }, ({ body: { stream_id, ...changes }, admin, call, services }) =>
  services.catalogAdmin.update(admin, 'stream', { ...changes, id: stream_id }, call),
);
