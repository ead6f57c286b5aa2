import { catalogAdminServices } from '../shared/catalog/services.js';
import { api } from '../shared/platform/http/pipeline.js';
import { updateStream } from '../shared/catalog/routes/update-stream.js';

/** PATCH /api/org-api-keys?action=update-stream (bearer; owner, admin or editor of `org_id`) */
export const handler = api(updateStream, { services: catalogAdminServices }, ({ body: { stream_id, ...changes }, admin, call, services }) =>
  services.catalogAdmin.update(admin, 'stream', { ...changes, id: stream_id }, call),
);
