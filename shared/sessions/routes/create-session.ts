import { CreatedSession, CreateSessionBody, IdempotencyKeyHeader, ReplayedHeader } from '../schemas.js';
import { API_PATH, defineOperation } from '../../platform/route.js';
import { idempotencyServices } from '../../keys/index.js';
import { part } from '../../platform/services.js';
import { sessionServices } from '../services.js';
import { keyApi } from '../../keys/index.js';

/** create-session: a partner's server mints a single-use session token (optional `Idempotency-Key`). */
export const createSession = defineOperation({
  operation: 'create-session',
  function: 'create-session',
  data: {
    keys: ['GetItem', 'UpdateItem'],
    catalog: ['GetItem'],
    // Counting: one conditional write (a refusal returns the counter with it: no read).
    // GetItem and PutItem: the day's counter layout after a limit change (CounterLayouts in shared/keys/rate-limit.ts).
    counters: ['UpdateItem', 'GetItem', 'PutItem'],
    tokens: ['PutItem', 'DeleteItem'],
    // UpdateItem: refused calls counted in the usage rollup, beside their audit records. DeleteItem:
    // the record of a call ahead of its key's read that is served again or replayed (known-keys.ts).
    audit: ['PutItem', 'UpdateItem', 'DeleteItem'],
    // Only with an `Idempotency-Key`: claim (conditional put; a refusal returns the stored answer with
    // it: no read), store an answer, release.
    idempotency: ['PutItem', 'UpdateItem', 'DeleteItem'],
  },
  parts: ['sessions', 'idempotency'],
  method: 'POST',
  path: API_PATH,
  action: 'create-session',
  auth: 'apiKey',
  capacity: 'key',
  summary: 'Mint a single-use session token for one game or stream',
  body: CreateSessionBody,
  response: CreatedSession,
  headers: IdempotencyKeyHeader,
  responseHeaders: ReplayedHeader,
  errors: [409, 422],
  idempotent: true,
  // A key this container last read valid: its count, token and audit record beside its read (one stage).
  ahead: true,
});

/** The session part with `Idempotency-Key` records (their code only in this bundle and the MCP server's). */
const idempotentSessionServices = /* @__PURE__ */ part(() => ({ ...sessionServices(), ...idempotencyServices() }));

/** POST /api/org-api-keys?action=create-session (x-api-key; optional Idempotency-Key) */
export const handler = /* @__PURE__ */ keyApi(
  createSession,
  {
    services: idempotentSessionServices,
    // The game or stream needs no key: read alongside authentication (and the Idempotency-Key claim).
    prefetch: ({ body }, { sessions }) => sessions.readTarget(body),
  },
  async ({ body, key, call, action, services, prefetched }) => services.sessions.create(key, body, call, action, await prefetched),
);
