import { UpdateStreamBody, StreamView } from '../schemas.js';
import { API_PATH, defineOperation } from '../../platform/route.js';
import { catalogAdminServices } from '../admin-services.js';
import { api } from '../../platform/http/pipeline.js';

/**
 * update-stream: an owner, admin or editor renames a stream of the organization, turns its "Require API
 * Session Token" setting on or off or sets how its play pages start (bearer): the MCP update_stream tool's domain. The stream is read
 * alongside the membership and the org, then changed (one conditional write) beside its audit record.
 */
export const updateStream = defineOperation({
  operation: 'update-stream',
  function: 'update-stream',
  data: { catalog: ['GetItem', 'UpdateItem'], audit: ['PutItem'] },
  parts: ['catalogAdmin'],
  method: 'PATCH',
  path: API_PATH,
  action: 'update-stream',
  auth: 'bearer',
  capacity: 'admin',
  summary: 'Change a stream of the organization: its name, its “Require API Session Token” setting or how its play pages start',
  body: UpdateStreamBody,
  response: StreamView,
  errors: [404],
});

/** PATCH /api/org-api-keys?action=update-stream (bearer; owner, admin or editor of `org_id`) */
export const handler = /* @__PURE__ */ api(
  updateStream,
  { services: catalogAdminServices },
  ({ body: { stream_id, ...changes }, admin, call, services }) =>
    services.catalogAdmin.update(admin, 'stream', { ...changes, id: stream_id }, call),
);
