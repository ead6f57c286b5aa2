import * as z from 'zod/mini';
import { ApiKeyView, ListKeysQuery } from '../schemas.js';
import { API_PATH, defineOperation } from '../../platform/route.js';
import { adminServices } from '../admin-services.js';
import { api } from '../../platform/http/pipeline.js';

/**
 * list-keys: an org admin lists the organization's API keys (bearer). Like every key-management
 * operation it reads the membership and the org (catalog) alongside its first read.
 */
export const listKeys = defineOperation({
  operation: 'list-keys',
  function: 'list-keys',
  data: { catalog: ['GetItem'], keys: ['Query'], audit: ['PutItem'] },
  parts: ['admin'],
  method: 'GET',
  path: API_PATH,
  auth: 'bearer',
  capacity: 'admin',
  summary: 'List the API keys of an organization (never the raw key or its hash)',
  query: ListKeysQuery,
  response: z.array(ApiKeyView),
});

/** GET /api/org-api-keys?org_id=<id> (bearer; owner or admin of the org) */
export const handler = /* @__PURE__ */ api(listKeys, { services: adminServices }, ({ query, admin, call, services }) =>
  services.keyAdmin.list(admin, query.org_id, call),
);
