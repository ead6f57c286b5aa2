import { api } from '../shared/http/api.js';
import { openapi } from '../shared/operations/openapi.js';
import { openApiDocument } from '../shared/schemas/openapi.js';

/** GET /api/openapi.json (no credential): the interface description, generated from the schemas */
export const handler = api(openapi, {}, async () => openApiDocument());
