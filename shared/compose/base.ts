/**
 * The composition root's foundation. Each Lambda function imports only the parts it uses (see the
 * other files of this folder), so its bundle carries only their code: the session functions
 * carry no JWT verifier, no admin domain and no idempotency library (figures in BENCHMARKS.md).
 * Every part is built once per container (module scope, so a warm Lambda reuses the client and its
 * keep-alive connections), and all parts share one core: environment, clock, DynamoDB client and
 * store adapters.
 */
import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { systemClock, type Clock } from '../domain/clock.js';
import { env, type Env } from '../env.js';
import { DynamoAuditStore } from '../store/audit-store.js';
import { DynamoCatalogStore } from '../store/catalog-store.js';
import { DynamoCounterStore } from '../store/counter-store.js';
import { createDocumentClient } from '../store/dynamo-client.js';
import { DynamoKeyStore } from '../store/key-store.js';
import { DynamoTokenReportStore } from '../store/token-report-store.js';
import { DynamoTokenStore } from '../store/token-store.js';

/** The DynamoDB adapters every part builds on (small, stateless; idempotency records are a part of their own). */
export interface Stores {
  readonly tokens: DynamoTokenStore;
  readonly keys: DynamoKeyStore;
  readonly catalog: DynamoCatalogStore;
  readonly counters: DynamoCounterStore;
  readonly audit: DynamoAuditStore;
  readonly tokenReports: DynamoTokenReportStore;
}

/** What every part shares. */
export interface CoreServices {
  readonly env: Env;
  readonly clock: Clock;
  readonly client: DynamoDBDocumentClient;
  readonly stores: Stores;
}

/** What tests and the local runner may replace. */
export interface ServiceOverrides {
  readonly clock?: Clock;
  readonly client?: DynamoDBDocumentClient;
}

let overrides: ServiceOverrides = {};
/** Bumped by {@link overrideServices}: every part built before is rebuilt on its next use. */
let generation = 0;

/** Replace parts of the services (tests, local runner); every part is rebuilt on its next use. */
export function overrideServices(next: ServiceOverrides): void {
  overrides = next;
  generation += 1;
}

/**
 * Declare a part of the services: `build` runs on the part's first use (not at import, so the
 * local runner can set the environment first) and again only after {@link overrideServices}.
 */
export function part<T>(build: () => T): () => T {
  let built: { readonly generation: number; readonly value: T } | undefined;
  return () => {
    if (built?.generation !== generation) built = { generation, value: build() };
    return built.value;
  };
}

/** The core of this container's services. */
export const coreServices = part((): CoreServices => {
  const e = env();
  const client = overrides.client ?? createDocumentClient({ endpoint: e.DYNAMODB_ENDPOINT });
  return {
    env: e,
    clock: overrides.clock ?? systemClock,
    client,
    stores: {
      tokens: new DynamoTokenStore({ client, tableName: e.TOKENS_TABLE }),
      keys: new DynamoKeyStore({ client, tableName: e.KEYS_TABLE }),
      catalog: new DynamoCatalogStore({ client, tableName: e.CATALOG_TABLE }),
      counters: new DynamoCounterStore({ client, tableName: e.COUNTERS_TABLE }),
      audit: new DynamoAuditStore({ client, tableName: e.AUDIT_TABLE }),
      tokenReports: new DynamoTokenReportStore({ client, tableName: e.TOKENS_TABLE }),
    },
  };
});
