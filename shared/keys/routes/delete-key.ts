import { DeletedApiKey, DeleteKeyQuery } from '../schemas.js';
import { API_PATH, defineOperation } from '../../platform/route.js';
import { adminServices } from '../admin-services.js';
import { api } from '../../platform/http/pipeline.js';

/** delete-key: an org admin deletes an API key (bearer); the change is written with its audit record. */
export const deleteKey = defineOperation({
  operation: 'delete-key',
  function: 'delete-key',
  // keys GetItem: the key's id item; DeleteItem and PutItem: one transaction of the key's delete and
  // its id item's tombstone (who deleted it: the actor of key.deleted).
  data: { catalog: ['GetItem'], keys: ['GetItem', 'DeleteItem', 'PutItem'], audit: ['PutItem'] },
  parts: ['admin'],
  method: 'DELETE',
  path: API_PATH,
  auth: 'bearer',
  capacity: 'admin',
  summary: 'Delete an API key permanently',
  query: DeleteKeyQuery,
  response: DeletedApiKey,
  errors: [404],
});

/** DELETE /api/org-api-keys?id=<key_id>&org_id=<id> (bearer; owner or admin of the org) */
export const handler = /* @__PURE__ */ api(deleteKey, { services: adminServices }, ({ query, admin, call, services }) =>
  services.keyAdmin.remove(admin, query.org_id, query.id, call),
);
