import { api } from '../shared/http/api.js';
import { CreateSessionBody } from '../shared/schemas/sessions.js';

/** POST /api/org-api-keys?action=create-session (x-api-key) */
export const handler = api({ operation: 'create-session', body: CreateSessionBody }, ({ body, credential, call, services }) =>
  services.sessions.create(credential, body, call),
);
