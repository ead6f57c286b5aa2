/** The audit feature as other features see it (the audit records every feature writes): import it from here, never from its files (eslint.config.js). */
export { AdminAudit, type AdminCall } from './admin-audit.js';
export { correctsDiff, diffOf, type AuditDiff } from './audit-diff.js';
export { auditRecord } from './audit-record.js';
export { AUDIT_SHARDS } from './audit-store.js';
export { type AuditRecord } from './model.js';
export {
  type AuditQuery,
  type AuditReader,
  type AuditStore,
  type RefusalCountRow,
  type RefusalKind,
  type UsageRollupStore,
} from './ports.js';
export { FieldChange } from './schemas.js';
export { auditStore, usageRollupStore } from './services.js';
export { KIND_LETTER } from './usage-rollup-store.js';
