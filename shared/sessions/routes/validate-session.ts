import { SessionView, ValidateSessionQuery } from '../schemas.js';
import { API_PATH, defineOperation } from '../../platform/route.js';
import { sessionReads } from '../services.js';
import { api } from '../../platform/http/pipeline.js';

/** validate-session: read a session token without consuming it (no credential). */
export const validateSession = defineOperation({
  operation: 'validate-session',
  function: 'validate-session',
  data: { tokens: ['GetItem'] },
  parts: ['sessions'],
  method: 'GET',
  path: API_PATH,
  action: 'validate-session',
  auth: 'none',
  capacity: 'token',
  summary: 'Read a session token without consuming it',
  query: ValidateSessionQuery,
  response: SessionView,
  errors: [404],
});

/** GET /api/org-api-keys?action=validate-session&token=<uuid> (no credential, read-only) */
export const handler = /* @__PURE__ */ api(validateSession, { services: sessionReads }, ({ query, services }) =>
  services.sessions.validate(query.token),
);
