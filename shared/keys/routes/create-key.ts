import { CreatedApiKey, CreateKeyBody } from '../schemas.js';
import { API_PATH, defineOperation } from '../../platform/route.js';
import { adminServices } from '../admin-services.js';
import { api } from '../../platform/http/pipeline.js';

/** create-key: an org admin creates an API key (bearer); the change is written with its audit record. */
export const createKey = defineOperation({
  operation: 'create-key',
  function: 'create-key',
  // One transaction: keys PutItem (the key and its id item) and catalog ConditionCheckItem (the org's
  // tier is still the one the key copied: shared/keys/org-tiers.ts; a refusal returns the org with it);
  // catalog GetItem: membership and org.
  data: { catalog: ['GetItem', 'ConditionCheckItem'], counters: ['UpdateItem'], keys: ['PutItem'], audit: ['PutItem'] },
  parts: ['admin'],
  method: 'POST',
  path: API_PATH,
  auth: 'bearer',
  capacity: 'admin',
  summary: 'Create an API key; the raw key is returned once',
  body: CreateKeyBody,
  response: CreatedApiKey,
  // The org's tier changed twice while the key was being stored (shared/keys/key-admin.ts): try again.
  errors: [409],
});

/** POST /api/org-api-keys (bearer; owner or admin of `org_id`); the raw key is in this answer only */
export const handler = /* @__PURE__ */ api(createKey, { services: adminServices }, ({ body, admin, call, services }) =>
  services.keyAdmin.create(admin, body, call),
);
