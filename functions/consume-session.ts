import { sessionServices } from '../shared/compose/sessions.js';
import { api } from '../shared/http/api.js';
import { consumeSession } from '../shared/operations/consume-session.js';

/** POST /api/org-api-keys?action=consume-session (no credential; atomic, once) */
export const handler = api(consumeSession, { services: sessionServices }, ({ body, services }) =>
  services.sessions.consume(body.token, body.player_uuid),
);
