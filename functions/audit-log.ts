import { adminServices } from '../shared/compose/admin.js';
import { api } from '../shared/http/api.js';
import { AuditLogQuery } from '../shared/schemas/audit.js';

/** GET /api/org-api-keys?action=audit-log&org_id=<id>[&key_id=<id>][&cursor=<c>][&limit=<n>] (bearer) */
export const handler = api({ operation: 'audit-log', services: adminServices, query: AuditLogQuery }, ({ query, admin, services }) =>
  services.auditLog.read(admin, query),
);
