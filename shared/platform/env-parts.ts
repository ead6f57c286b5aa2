/**
 * Who reads each variable of THE env schema (`env.ts`), so that a function's environment holds only
 * what its own code reads (the play cookie's secret only where play pages are served, the JWT issuer
 * only where admins' bearer tokens are checked). Each part lists what its code in the features'
 * `services.ts` files (and the `shared/platform/http/`, `shared/mcp/` code over it) reads; each
 * operation's declaration (its feature's `routes/`, its `parts`) names the parts its function builds. CDK gives a function the
 * variables of {@link functionEnvVars} and nothing else; `test/unit/env-parts.test.ts` builds every
 * function's parts on exactly that environment.
 *
 * Only CDK and tests import this: no bundle carries it (the declarations import only its
 * {@link EnvPart} type).
 */
import type { EnvInput } from './env.js';
import type { RouteDefinition } from './route.js';
import type { WorkerDefinition } from './worker.js';
import { tables, type TableName } from '../tables.js';

/** A variable of the environment. */
export type EnvVar = keyof EnvInput;

/** The table-name variables of some tables. */
const tableVars = <const T extends readonly TableName[]>(...names: T) => names.map((name) => tables[name].envVar);

/** What `shared/platform/services.ts` reads for the DynamoDB client every part but `http` builds on. */
const CORE = ['DYNAMODB_ENDPOINT'] as const;
/** What `shared/platform/bearer.ts` reads to verify org members' bearer tokens. */
const BEARER = ['JWT_ISSUER', 'JWT_AUDIENCE', 'JWT_MAX_LIFETIME_SECONDS', 'JWT_JWKS_URL', 'JWT_JWKS'] as const;

/** What the logger (`shared/platform/observability.ts`) and the metrics read: every function and worker. */
const LOGGING = ['POWERTOOLS_SERVICE_NAME', 'POWERTOOLS_LOG_LEVEL'] as const;

/** The parts of the services and the variables each reads. */
export const envParts = {
  /** Every function: the logger (`shared/platform/observability.ts`) and the origin check (`shared/platform/secrets.ts`). */
  http: [...LOGGING, 'ORIGIN_VERIFY_SECRET_ARN'],
  /** `shared/sessions/services.ts`: key calls (authenticate, meter, audit) and the session domain. */
  sessions: [
    ...CORE,
    ...tableVars('tokens', 'keys', 'catalog', 'counters', 'audit'),
    'TOKEN_RETENTION_DAYS',
    'AUDIT_RETENTION_DAYS',
    'DYNAMODB_PARTITION_WRITE_UNITS',
  ],
  /**
   * Consumptions (`sessionTokens` of `shared/sessions/services.ts`: consume-session and the play
   * page's play session): session ids' blocks in the counters, and their permutation's key (read
   * only when a token is consumed).
   */
  sessionIds: [...CORE, ...tableVars('tokens', 'counters'), 'SESSION_ID_KEY', 'SESSION_ID_KEY_ARN'],
  /** `shared/sessions/idempotent-services.ts`: the `Idempotency-Key` records. */
  idempotency: [...CORE, ...tableVars('idempotency')],
  /** `shared/keys/services.ts`: admins' bearer tokens, key administration and the audit log. */
  admin: [...CORE, ...tableVars('catalog', 'keys', 'audit', 'counters'), 'AUDIT_RETENTION_DAYS', ...BEARER],
  /** `shared/webhooks/admin-services.ts`: owners' and admins' webhook endpoints (ids from the counters, secrets sealed). */
  webhooks: [
    ...CORE,
    ...tableVars('catalog', 'audit', 'counters'),
    'AUDIT_RETENTION_DAYS',
    ...BEARER,
    'WEBHOOK_SECRET_KEY',
    'WEBHOOK_SECRET_KEY_ARN',
  ],
  /**
   * `shared/webhooks/admin-services.ts` (`webhookDeliveryAdminServices`): owners' and admins'
   * deliveries (list, retry, test; the org's budget of hand sends in the counters).
   */
  webhookDeliveries: [
    ...CORE,
    ...tableVars('catalog', 'audit', 'webhooks', 'counters'),
    'AUDIT_RETENTION_DAYS',
    ...BEARER,
    'WEBHOOK_DELIVERY_QUEUE_URL',
  ],
  /** `shared/webhooks/event-services.ts`: the stream and due workers (events to deliveries, due items). */
  // counters: only its name, which tells the counters stream's records from the others'.
  webhookEvents: [
    ...CORE,
    ...tableVars('tokens', 'keys', 'counters', 'catalog', 'webhooks'),
    'WEBHOOK_DELIVERY_QUEUE_URL',
    'WEBHOOK_STREAM_FAILURES_QUEUE_URL',
  ],
  /** `shared/webhooks/delivery-services.ts`: the delivery worker (attempts, endpoint health, its audit records). */
  webhookDelivery: [
    ...CORE,
    ...tableVars('catalog', 'webhooks', 'audit'),
    'AUDIT_RETENTION_DAYS',
    'WEBHOOK_SECRET_KEY',
    'WEBHOOK_SECRET_KEY_ARN',
    'WEBHOOK_DELIVERY_QUEUE_URL',
  ],
  /** `shared/catalog/services.ts`: members' list and changes of games and streams (with their play links). */
  catalogAdmin: [...CORE, ...tableVars('catalog', 'audit'), 'AUDIT_RETENTION_DAYS', 'PUBLIC_BASE_URL', ...BEARER],
  /** `shared/catalog/org-services.ts`: the subject's organizations (the console's org picker). */
  orgs: [...CORE, ...tableVars('catalog'), ...BEARER],
  /** `shared/usage/services.ts`: the usage report for members (sessions from tokens and audit, refusals from counters). */
  usage: [...CORE, ...tableVars('catalog', 'tokens', 'audit', 'counters'), 'TOKEN_RETENTION_DAYS', ...BEARER],
  /** `shared/mcp/services.ts` (catalog, report and webhook tools), `mcp/origin.ts` and the links of `mcp/tool.ts`. */
  mcp: [
    ...CORE,
    ...tableVars('catalog', 'tokens', 'audit', 'counters', 'webhooks'),
    'TOKEN_RETENTION_DAYS',
    'MCP_ALLOWED_ORIGINS',
    'PUBLIC_BASE_URL',
    // The webhook tools: endpoints' secrets sealed (create_webhook), deliveries queued (retry_webhook_delivery).
    'WEBHOOK_SECRET_KEY',
    'WEBHOOK_SECRET_KEY_ARN',
    'WEBHOOK_DELIVERY_QUEUE_URL',
  ],
  /** `shared/play/services.ts` and `shared/play/play-requests.ts`: pages, play passes and their cookie. */
  play: [...CORE, ...tableVars('catalog', 'tokens'), 'PUBLIC_BASE_URL', 'PLAY_COOKIE_SECRET', 'PLAY_COOKIE_SECRET_ARN'],
  /** `shared/meta/health-services.ts`: the versions reported and the deep check's catalog read. */
  health: [...CORE, ...tableVars('catalog'), 'BUILD_VERSION'],
} as const satisfies Record<string, readonly EnvVar[]>;

/** A part of the services, as far as the environment is concerned. */
export type EnvPart = keyof typeof envParts;

/** The parts a function builds: `http`, and those of every operation it serves. */
export function functionParts(routes: readonly RouteDefinition[], fn: string): EnvPart[] {
  const parts = new Set<EnvPart>(['http']);
  for (const route of routes.filter((r) => r.function === fn)) {
    for (const part of route.parts) parts.add(part);
  }
  return [...parts];
}

/** The variables a function's code reads: those of its parts, sorted. */
export function functionEnvVars(routes: readonly RouteDefinition[], fn: string): EnvVar[] {
  return [...new Set(functionParts(routes, fn).flatMap((part): readonly EnvVar[] => envParts[part]))].sort();
}

/**
 * The variables a worker's code reads (shared/platform/worker.ts): the logger's and those of its
 * parts, sorted. No `http` part: no request reaches a worker, so it has no origin check.
 */
export function workerEnvVars(worker: Pick<WorkerDefinition, 'parts'>): EnvVar[] {
  return [...new Set([...LOGGING, ...worker.parts.flatMap((part): readonly EnvVar[] => envParts[part])])].sort();
}
