import { ConsumedSession, ConsumeSessionBody } from '../schemas.js';
import { API_PATH, defineOperation } from '../../platform/route.js';
import { sessionTokens } from '../services.js';
import { api } from '../../platform/http/pipeline.js';

/** consume-session: use a session token, atomically and once (no credential); a bound token only by its player. */
export const consumeSession = defineOperation({
  operation: 'consume-session',
  function: 'consume-session',
  data: { tokens: ['UpdateItem'], counters: ['UpdateItem'] },
  parts: ['sessions', 'sessionIds'],
  method: 'POST',
  path: API_PATH,
  action: 'consume-session',
  auth: 'none',
  capacity: 'token',
  summary: 'Consume a session token, atomically and once',
  body: ConsumeSessionBody,
  response: ConsumedSession,
  // 403 player_mismatch: the token is bound to another player (it stays active).
  errors: [403, 410],
});

/** POST /api/org-api-keys?action=consume-session (no credential; atomic, once) */
export const handler = /* @__PURE__ */ api(consumeSession, { services: sessionTokens }, ({ body, services }) =>
  services.sessions.consume(body.token, body.player_uuid),
);
