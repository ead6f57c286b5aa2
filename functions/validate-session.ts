import { sessionServices } from '../shared/compose/sessions.js';
import { api } from '../shared/http/api.js';
import { ValidateSessionQuery } from '../shared/schemas/sessions.js';

/** GET /api/org-api-keys?action=validate-session&token=<uuid> (no credential, read-only) */
export const handler = api(
  { operation: 'validate-session', services: sessionServices, query: ValidateSessionQuery },
  ({ query, services }) => services.sessions.validate(query.token),
);
