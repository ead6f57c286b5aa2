/**
 * The composition root: builds the stores and domain services once per container (module scope,
 * so a warm Lambda reuses the client and its keep-alive connections) from the parsed environment.
 */
import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { systemClock, type Clock } from './domain/clock.js';
import { BlockIdAllocator } from './domain/ids.js';
import { KeyCalls } from './domain/key-calls.js';
import { Sessions } from './domain/sessions.js';
import { env, type Env } from './env.js';
import { logger } from './http/logger.js';
import { DynamoAuditStore } from './store/audit-store.js';
import { DynamoCatalogStore } from './store/catalog-store.js';
import { DynamoCounterStore } from './store/counter-store.js';
import { createDocumentClient } from './store/dynamo-client.js';
import { DynamoKeyStore } from './store/key-store.js';
import { DynamoTokenStore } from './store/token-store.js';

/** Ids reserved per block: one counter update per this many consumptions, per container. */
const SESSION_ID_BLOCK = 100;

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
  };
  readonly keyCalls: KeyCalls;
  readonly sessions: Sessions;
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
    catalog: stores.catalog,
    keyCalls,
    sessionIds: new BlockIdAllocator(stores.counters, 'session_id', SESSION_ID_BLOCK),
    clock,
    tokenRetentionDays: e.TOKEN_RETENTION_DAYS,
  });
  return { env: e, clock, client, stores, keyCalls, sessions };
}
