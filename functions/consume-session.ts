import { sessionServices } from '../shared/sessions/services.js';
import { api } from '../shared/platform/http/pipeline.js';
import { consumeSession } from '../shared/sessions/routes/consume-session.js';

/** POST /api/org-api-keys?action=consume-session (no credential; atomic, once) */
export const handler = api(consumeSession, { services: sessionServices }, ({ body, services }) =>
  services.sessions.consume(body.token, body.player_uuid),
);
