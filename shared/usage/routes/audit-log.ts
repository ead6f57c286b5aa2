import { AuditLogPage, AuditLogQuery } from '../audit-schemas.js';
import { API_PATH, defineOperation } from '../../platform/route.js';
import { auditLogServices } from '../admin-services.js';
import { api } from '../../platform/http/pipeline.js';

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

/** GET /api/org-api-keys?action=audit-log&org_id=<id>[&key_id=<id>][&audit_action=<a>][&outcome=<o>][&cursor=<c>][&limit=<n>] (bearer) */
export const handler = /* @__PURE__ */ api(
  auditLog,
  { services: auditLogServices },
  ({ query: { audit_action, ...query }, admin, services }) => services.auditLog.read(admin, { ...query, action: audit_action }),
);
