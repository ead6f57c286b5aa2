/**
 * The DynamoDB adapters, one per port, each built on first use with the core's client. Every
 * declaration is pure: a function's bundle carries only the adapters its part uses.
 */
import { required } from './env.js';
import { DynamoAuditStore } from '../audit/audit-store.js';
import { DynamoCatalogStore } from '../catalog/catalog-store.js';
import { DynamoCounterStore } from '../keys/counter-store.js';
import type { StoreOptions } from './dynamo/client.js';
import { DynamoKeyAuthStore } from '../keys/key-auth-store.js';
import { DynamoKeyStore } from '../keys/key-store.js';
import { DynamoTokenReportStore } from '../usage/token-report-store.js';
import { DynamoTokenStore } from '../sessions/token-store.js';
import { DynamoUsageRollupReader } from '../usage/usage-rollup-reads.js';
import { DynamoUsageRollupStore } from '../audit/usage-rollup-store.js';
import { tables, type TableName } from '../tables.js';
import { coreServices, part } from './services.js';

/** The client and physical name of a table (from the environment), for an adapter's constructor. */
function options(table: TableName): StoreOptions {
  const { client, env } = coreServices();
  return { client, tableName: required(env, tables[table].envVar) };
}

export const tokenStore = /* @__PURE__ */ part(() => new DynamoTokenStore(options('tokens')));
/** Key management's adapter: a new key is written with a check of its org's item in the catalog. */
export const keyStore = /* @__PURE__ */ part(
  () => new DynamoKeyStore({ ...options('keys'), catalogTableName: options('catalog').tableName }),
);
/** Authentication's share of the keys table: the session functions carry no key-management code. */
export const keyAuthStore = /* @__PURE__ */ part(() => new DynamoKeyAuthStore(options('keys')));
export const catalogStore = /* @__PURE__ */ part(() => new DynamoCatalogStore(options('catalog')));
export const counterStore = /* @__PURE__ */ part(() => new DynamoCounterStore(options('counters')));
export const auditStore = /* @__PURE__ */ part(() => new DynamoAuditStore(options('audit')));
export const tokenReportStore = /* @__PURE__ */ part(() => new DynamoTokenReportStore(options('tokens')));
/** The usage rollup lives in the audit table, beside the records it counts. */
export const usageRollupStore = /* @__PURE__ */ part(() => new DynamoUsageRollupStore(options('audit')));
export const usageRollupReader = /* @__PURE__ */ part(() => new DynamoUsageRollupReader(options('audit')));
