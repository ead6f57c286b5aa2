/** The audit feature's adapters: the audit table's records and the usage rollup beside them. */
import { part, storeOptions } from '../platform/services.js';
import { DynamoAuditStore, DynamoUsageRollupStore } from './audit-store.js';

export const auditStore = /* @__PURE__ */ part(() => new DynamoAuditStore(storeOptions('audit')));
/** The usage rollup lives in the audit table, beside the records it counts. */
export const usageRollupStore = /* @__PURE__ */ part(() => new DynamoUsageRollupStore(storeOptions('audit')));
