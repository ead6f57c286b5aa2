import { RevokeSessionBody, SessionView } from '../schemas.js';
import { API_PATH, defineOperation } from '../../platform/route.js';
import { sessionServices } from '../services.js';
import { keyApi } from '../../keys/index.js';

/** revoke-session: a partner's server cancels an active token of its organization. */
export const revokeSession = defineOperation({
  operation: 'revoke-session',
  function: 'revoke-session',
  data: {
    keys: ['GetItem', 'UpdateItem'],
    // GetItem and PutItem also: the day's counter layout after a limit change (CounterLayouts in shared/keys/rate-limit.ts).
    counters: ['UpdateItem', 'GetItem', 'PutItem'],
    // GetItem: the token, for a key with an allow-list (its scope decides before the revoke); a
    // refused revoke returns the token with it (no read).
    tokens: ['UpdateItem', 'GetItem'],
    audit: ['PutItem', 'UpdateItem'],
  },
  parts: ['sessions'],
  method: 'POST',
  path: API_PATH,
  action: 'revoke-session',
  auth: 'apiKey',
  capacity: 'key',
  summary: 'Revoke an active session token of the key’s organization',
  body: RevokeSessionBody,
  response: SessionView,
  errors: [404, 410],
});

/** POST /api/org-api-keys?action=revoke-session (x-api-key; the key's org must own the token) */
export const handler = /* @__PURE__ */ keyApi(revokeSession, { services: sessionServices }, ({ body, key, call, action, services }) =>
  services.sessions.revoke(key, body.token, call, action),
);
