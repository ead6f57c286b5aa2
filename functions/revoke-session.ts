import { sessionServices } from '../shared/compose/sessions.js';
import { keyApi } from '../shared/http/api-key.js';
import { revokeSession } from '../shared/operations/revoke-session.js';

/** POST /api/org-api-keys?action=revoke-session (x-api-key; the key's org must own the token) */
export const handler = keyApi(revokeSession, { services: sessionServices }, ({ body, key, call, action, services }) =>
  services.sessions.revoke(key, body.token, call, action),
);
