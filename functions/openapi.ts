import document from '../docs/openapi.json' with { type: 'json' };
import { api } from '../shared/platform/http/pipeline.js';
import { openapi } from '../shared/meta/routes/openapi.js';

/**
 * GET /api/openapi.json (no credential): the interface description. Served as generated from the
 * schemas into docs/openapi.json (`npm run openapi`; a test keeps it current), rather than generated
 * again per container: the bundle carries the document, not the generator and every schema.
 */
export const handler = api(openapi, {}, async () => document);
