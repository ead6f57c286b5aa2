/** The `Idempotency-Key` part: its records (Powertools' idempotency utility), for the functions that accept the header. */
import type { APIGatewayProxyStructuredResultV2 } from 'aws-lambda';
import { required } from '../platform/env.js';
import { IdempotencyStore } from '../keys/idempotency-store.js';
import { coreServices, part } from '../platform/services.js';
import { sessionServices, type SessionServices } from './services.js';

/** What an idempotent operation needs besides its own services. */
export interface IdempotencyServices {
  /** The records of `Idempotency-Key` calls; each holds the whole HTTP answer given to the first call. */
  readonly idempotency: IdempotencyStore<APIGatewayProxyStructuredResultV2>;
}

/** The idempotency part of this container's services. */
export const idempotencyServices = /* @__PURE__ */ part((): IdempotencyServices => {
  const { client, env } = coreServices();
  return { idempotency: new IdempotencyStore({ client, tableName: required(env, 'IDEMPOTENCY_TABLE') }) };
});

/** What create-session needs: the session part, with `Idempotency-Key` records. */
export type IdempotentSessionServices = SessionServices & IdempotencyServices;

/** The session part with idempotency records (create-session, and the MCP server's part). */
export const idempotentSessionServices = /* @__PURE__ */ part((): IdempotentSessionServices => ({
  ...sessionServices(),
  ...idempotencyServices(),
}));
