import { SessionView, ValidateSessionQuery } from '../schemas.js';
import { API_PATH, defineOperation } from '../../platform/route.js';

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
