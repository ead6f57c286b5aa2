import { sessionServices } from '../shared/compose/sessions.js';
import { api } from '../shared/http/api.js';
import { ConsumeSessionBody } from '../shared/schemas/sessions.js';

/** POST /api/org-api-keys?action=consume-session (no credential; atomic, once) */
export const handler = api({ operation: 'consume-session', services: sessionServices, body: ConsumeSessionBody }, ({ body, services }) =>
  services.sessions.consume(body.token, body.player_uuid),
);
