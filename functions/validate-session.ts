import { sessionServices } from '../shared/sessions/services.js';
import { api } from '../shared/platform/http/pipeline.js';
import { validateSession } from '../shared/sessions/routes/validate-session.js';

/** GET /api/org-api-keys?action=validate-session&token=<uuid> (no credential, read-only) */
export const handler = api(validateSession, { services: sessionServices }, ({ query, services }) =>
  services.sessions.validate(query.token),
);
