import { sessionServices } from '../shared/compose/sessions.js';
import { api } from '../shared/http/api.js';
import { validateSession } from '../shared/operations/validate-session.js';

/** GET /api/org-api-keys?action=validate-session&token=<uuid> (no credential, read-only) */
export const handler = api(validateSession, { services: sessionServices }, ({ query, services }) =>
  services.sessions.validate(query.token),
);
