/**
 * The composition root: builds the stores and domain services once per container (module scope,
 * so a warm Lambda reuses the client and its keep-alive connections) from the parsed environment.
 */
import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { createBearerVerifier, type BearerVerifier } from './auth/jwt.js';
import { AdminAccess } from './domain/admin-access.js';
import { AuditLog } from './domain/audit-log.js';
import { systemClock, type Clock } from './domain/clock.js';
import { BlockIdAllocator } from './domain/ids.js';
import { KeyAdmin } from './domain/key-admin.js';
import { KeyCalls } from './domain/key-calls.js';
import { OrgCatalog } from './domain/org-catalog.js';
import { PlayPages } from './domain/play.js';
import { PlayPassSigner } from './domain/play-pass.js';
import { PlayableCache } from './domain/playable-cache.js';
import { SessionReports } from './domain/reports.js';
import { Sessions } from './domain/sessions.js';
import { env, type Env } from './env.js';
import { logger } from './http/logger.js';
import { DynamoAuditStore } from './store/audit-store.js';
import { DynamoCatalogStore } from './store/catalog-store.js';
import { DynamoCounterStore } from './store/counter-store.js';
import { createDocumentClient } from './store/dynamo-client.js';
import { IdempotencyStore } from './store/idempotency-store.js';
import { DynamoKeyStore } from './store/key-store.js';
import { DynamoTokenReportStore } from './store/token-report-store.js';
import { DynamoTokenStore } from './store/token-store.js';

/** Ids reserved per block: one counter update per this many consumptions, per container. */
const SESSION_ID_BLOCK = 100;

/** A play session (refreshes keep playing) lasts this long after the token is consumed. */
const PLAY_PASS_SECONDS = 4 * 3600;
/** The page asks for its play pass right after consuming; later than this it is refused. */
const PLAY_PASS_EXCHANGE_SECONDS = 60;

/** Everything a function needs. */
export interface Services {
  readonly env: Env;
  readonly clock: Clock;
  readonly client: DynamoDBDocumentClient;
  readonly stores: {
    readonly tokens: DynamoTokenStore;
    readonly keys: DynamoKeyStore;
    readonly catalog: DynamoCatalogStore;
    readonly counters: DynamoCounterStore;
    readonly audit: DynamoAuditStore;
    readonly tokenReports: DynamoTokenReportStore;
    /** `Idempotency-Key` records (Powertools' idempotency utility). */
    readonly idempotency: IdempotencyStore;
  };
  readonly keyCalls: KeyCalls;
  readonly sessions: Sessions;
  /** An organization's own games and streams (the MCP catalog tools). */
  readonly orgCatalog: OrgCatalog;
  /** Session reports (the MCP report tool). */
  readonly reports: SessionReports;
  /** Verifies admins' bearer tokens; built once per container, so the JWKS is fetched once. */
  readonly bearer: BearerVerifier;
  readonly keyAdmin: KeyAdmin;
  readonly auditLog: AuditLog;
  readonly play: PlayPages;
}

/** What tests and the local runner may replace. */
export interface ServiceOverrides {
  readonly clock?: Clock;
  readonly client?: DynamoDBDocumentClient;
}

let built: Services | undefined;
let overrides: ServiceOverrides = {};

/** The services of this container, built on first use. */
export function services(): Services {
  built ??= buildServices(env(), overrides);
  return built;
}

/** Replace parts of the services (tests, local runner); the next call to {@link services} rebuilds. */
export function overrideServices(next: ServiceOverrides): void {
  overrides = next;
  built = undefined;
}

/** Build the services from an environment. */
export function buildServices(e: Env, o: ServiceOverrides = {}): Services {
  const clock = o.clock ?? systemClock;
  const client = o.client ?? createDocumentClient({ endpoint: e.DYNAMODB_ENDPOINT });
  const stores = {
    tokens: new DynamoTokenStore({ client, tableName: e.TOKENS_TABLE }),
    keys: new DynamoKeyStore({ client, tableName: e.KEYS_TABLE }),
    catalog: new DynamoCatalogStore({ client, tableName: e.CATALOG_TABLE }),
    counters: new DynamoCounterStore({ client, tableName: e.COUNTERS_TABLE }),
    audit: new DynamoAuditStore({ client, tableName: e.AUDIT_TABLE }),
    tokenReports: new DynamoTokenReportStore({ client, tableName: e.TOKENS_TABLE }),
    idempotency: new IdempotencyStore({ client, tableName: e.IDEMPOTENCY_TABLE }),
  };
  const keyCalls = new KeyCalls({
    keys: stores.keys,
    counters: stores.counters,
    audit: stores.audit,
    clock,
    auditRetentionDays: e.AUDIT_RETENTION_DAYS,
    onBackgroundError: (error, what) => logger.warn(`background write failed: ${what}`, { error: error as Error }),
  });
  const sessions = new Sessions({
    tokens: stores.tokens,
    // Games and streams never change org and are never deleted: a warm create-session reads only the key.
    catalog: new PlayableCache(stores.catalog, clock),
    keyCalls,
    sessionIds: new BlockIdAllocator(stores.counters, 'session_id', SESSION_ID_BLOCK),
    clock,
    tokenRetentionDays: e.TOKEN_RETENTION_DAYS,
  });
  const access = new AdminAccess(stores.catalog);
  const keyAdmin = new KeyAdmin({
    access,
    keys: stores.keys,
    audit: stores.audit,
    // Block size 1, as the seed uses: key ids stay dense and unique across containers.
    keyIds: new BlockIdAllocator(stores.counters, 'key_id', 1),
    clock,
    auditRetentionDays: e.AUDIT_RETENTION_DAYS,
    onBackgroundError: (error, what) => logger.error(`write failed after the change took effect: ${what}`, { error: error as Error }),
  });
  const auditLog = new AuditLog({ access, reader: stores.audit });
  const play = new PlayPages({
    catalog: stores.catalog,
    tokens: stores.tokens,
    clock,
    // Read at first use: open games play even where no secret is configured; tokened ones fail loudly.
    passes: new PlayPassSigner(() => e.PLAY_COOKIE_SECRET ?? missingSecret()),
    passSeconds: PLAY_PASS_SECONDS,
    exchangeWindowSeconds: PLAY_PASS_EXCHANGE_SECONDS,
  });
  return {
    env: e,
    clock,
    client,
    stores,
    keyCalls,
    sessions,
    orgCatalog: new OrgCatalog(stores.catalog),
    reports: new SessionReports({ store: stores.tokenReports, clock, tokenRetentionDays: e.TOKEN_RETENTION_DAYS }),
    play,
    bearer: createBearerVerifier(e),
    keyAdmin,
    auditLog,
  };
}

function missingSecret(): never {
  throw new Error('PLAY_COOKIE_SECRET is not set: play pages cannot sign or check play cookies');
}
