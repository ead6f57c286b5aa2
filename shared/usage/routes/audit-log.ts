import { AuditLogPage, AuditLogQuery } from '../audit-schemas.js';
import { API_PATH, defineOperation } from '../../platform/route.js';

/** audit-log: an org admin reads the organization's audit log (bearer). */
export const auditLog = defineOperation({
  operation: 'audit-log',
  function: 'audit-log',
  data: { catalog: ['GetItem'], audit: ['Query'] },
  parts: ['admin'],
  method: 'GET',
  path: API_PATH,
  action: 'audit-log',
  auth: 'bearer',
  capacity: 'admin',
  summary: 'Read the organization’s audit log (key usage and key management), newest first',
  query: AuditLogQuery,
  response: AuditLogPage,
});
