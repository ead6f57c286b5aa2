import { idempotentSessionServices } from '../shared/compose/idempotency.js';
import { keyApi } from '../shared/http/api-key.js';
import { createSession } from '../shared/operations/create-session.js';

/** POST /api/org-api-keys?action=create-session (x-api-key; optional Idempotency-Key) */
export const handler = keyApi(
  createSession,
  {
    services: idempotentSessionServices,
    // The game or stream needs no key: read alongside authentication (and the Idempotency-Key claim).
    prefetch: ({ body }, { sessions }) => sessions.readTarget(body),
  },
  async ({ body, key, call, action, services, prefetched }) => services.sessions.create(key, body, call, action, await prefetched),
);
