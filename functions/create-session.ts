import { idempotentSessionServices } from '../shared/compose/idempotency.js';
import { api } from '../shared/http/api.js';
import { CreateSessionBody } from '../shared/schemas/sessions.js';

/** POST /api/org-api-keys?action=create-session (x-api-key; optional Idempotency-Key) */
export const handler = api(
  { operation: 'create-session', services: idempotentSessionServices, body: CreateSessionBody, idempotent: true },
  ({ body, credential, call, services, once }) => services.sessions.create(credential, body, call, once),
);
