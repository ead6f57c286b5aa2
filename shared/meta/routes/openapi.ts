import * as z from 'zod/mini';
import { withMeta } from '../../platform/schemas.js';
import { defineOperation } from '../../platform/route.js';
import document from '../../../docs/openapi.json' with { type: 'json' };
import { api } from '../../platform/http/pipeline.js';

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

/**
 * GET /api/openapi.json (no credential): the interface description. Served as generated from the
 * schemas into docs/openapi.json (`npm run openapi`; a test keeps it current), rather than generated
 * again per container: the bundle carries the document, not the generator and every schema.
 */
export const handler = /* @__PURE__ */ api(openapi, {}, async () => document);
