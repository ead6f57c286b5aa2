import { idempotentSessionServices } from '../shared/sessions/idempotent-services.js';
import { keyApi } from '../shared/keys/key-pipeline.js';
import { createSession } from '../shared/sessions/routes/create-session.js';

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
