/** The usage feature as other features see it (session reports and the audit log): import it from here, never from its files (eslint.config.js). */
export { ReportBudget } from './report-budget.js';
export { Day, SessionReportFields } from './report-schemas.js';
export { SessionReports, checkRange, type SessionCounts } from './reports.js';
export { auditLog } from './routes/audit-log.js';
export { usage } from './routes/usage.js';
export { tokenReportStore, usageRollupReader } from './services.js';
