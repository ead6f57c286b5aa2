import { api } from '../shared/http/api.js';
import { openApiDocument } from '../shared/schemas/openapi.js';

/** GET /api/openapi.json (no credential): the interface description, generated from the schemas */
export const handler = api({ operation: 'openapi', envelope: false }, async () => openApiDocument());
