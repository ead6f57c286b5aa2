/** The audit feature as other features see it (the audit records every feature writes): import it from here, never from its files (eslint.config.js). */
export { AdminAudit, type AdminCall } from './admin-audit.js';
export { auditRecord, correctsDiff, diffOf, type AuditDiff } from './audit-record.js';
export { AUDIT_SHARDS, KIND_LETTER } from './audit-store.js';
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
