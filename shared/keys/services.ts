/**
 * The keys feature's parts: its adapters, the key calls every API-key route runs (authenticate and
 * meter) and key administration for org admins (bearer).
 */
import { auditStore, usageRollupStore } from '../audit/index.js';
import { logger } from '../platform/observability.js';
import { coreServices, part, storeOptions } from '../platform/services.js';
import { DynamoCounterStore } from './counter-store.js';
import { DynamoKeyAuthStore } from './key-auth-store.js';
import { KeyCalls } from './key-calls.js';
import { DynamoKeyStore } from './key-store.js';

/** Key management's adapter: a new key is written with a check of its org's item in the catalog. */
export const keyStore = /* @__PURE__ */ part(
  () => new DynamoKeyStore({ ...storeOptions('keys'), catalogTableName: storeOptions('catalog').tableName }),
);
/** Authentication's share of the keys table: the session functions carry no key-management code. */
const keyAuthStore = /* @__PURE__ */ part(() => new DynamoKeyAuthStore(storeOptions('keys')));
export const counterStore = /* @__PURE__ */ part(() => new DynamoCounterStore(storeOptions('counters')));

/** Authenticates an API key and meters its calls (rate windows, audit): every API-key route's. */
export const keyCalls = /* @__PURE__ */ part((): KeyCalls => {
  const { clock, env } = coreServices();
  return new KeyCalls({
    keys: keyAuthStore(),
    counters: counterStore(),
    notices: counterStore(),
    rollups: usageRollupStore(),
    audit: auditStore(),
    clock,
    auditRetentionDays: env.AUDIT_RETENTION_DAYS,
    partitionWriteUnits: env.DYNAMODB_PARTITION_WRITE_UNITS,
    onBackgroundError: (error, what) => logger.warn(`background write failed: ${what}`, { error: error as Error }),
  });
});
