import { sessionServices } from '../shared/sessions/services.js';
import { keyApi } from '../shared/keys/key-pipeline.js';
import { revokeSession } from '../shared/sessions/routes/revoke-session.js';

/** POST /api/org-api-keys?action=revoke-session (x-api-key; the key's org must own the token) */
export const handler = keyApi(revokeSession, { services: sessionServices }, ({ body, key, call, action, services }) =>
  services.sessions.revoke(key, body.token, call, action),
);
