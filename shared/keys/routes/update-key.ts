import { ApiKeyView, UpdateKeyBody } from '../schemas.js';
import { API_PATH, defineOperation } from '../../platform/route.js';
import { adminServices } from '../admin-services.js';
import { api } from '../../platform/http/pipeline.js';

/** update-key: an org admin changes an API key (bearer); the change is written with its audit record. */
export const updateKey = defineOperation({
  operation: 'update-key',
  function: 'update-key',
  // keys GetItem: the key's id item, strongly consistent (shared/keys/key-id-items.ts).
  // keys Query: the key as the by_org index has it, for the audit record's before values (same stage).
  data: { catalog: ['GetItem'], keys: ['GetItem', 'UpdateItem', 'Query'], audit: ['PutItem'] },
  parts: ['admin'],
  method: 'PATCH',
  path: API_PATH,
  auth: 'bearer',
  capacity: 'admin',
  summary: 'Update an API key: revoke or reactivate (is_active), limits, scopes, expiry, labels',
  body: UpdateKeyBody,
  response: ApiKeyView,
  errors: [404, 409],
});

/** PATCH /api/org-api-keys (bearer; owner or admin of `org_id`); `is_active` revokes or reactivates */
export const handler = /* @__PURE__ */ api(updateKey, { services: adminServices }, ({ body, admin, call, services }) =>
  services.keyAdmin.update(admin, body, call),
);
