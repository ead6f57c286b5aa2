import * as z from 'zod/mini';
import { withMeta } from '../../platform/schemas.js';
import { defineOperation } from '../../platform/route.js';

/** openapi: this interface description (no credential, no envelope). */
export const openapi = defineOperation({
  operation: 'openapi',
  function: 'openapi',
  data: {},
  parts: [],
  method: 'GET',
  path: '/api/openapi.json',
  auth: 'none',
  capacity: 'meta',
  summary: 'This interface description (OpenAPI 3.1)',
  response: withMeta(z.record(z.string(), z.unknown()), { description: 'An OpenAPI 3.1 document.' }),
  reply: 'document',
});
