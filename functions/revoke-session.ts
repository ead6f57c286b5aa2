import { sessionServices } from '../shared/compose/sessions.js';
import { api } from '../shared/http/api.js';
import { RevokeSessionBody } from '../shared/schemas/sessions.js';

/** POST /api/org-api-keys?action=revoke-session (x-api-key; the key's org must own the token) */
export const handler = api(
  { operation: 'revoke-session', services: sessionServices, body: RevokeSessionBody },
  ({ body, credential, call, services }) => services.sessions.revoke(credential, body.token, call),
);
