import { auditLogServices } from '../shared/keys/services.js';
import { api } from '../shared/platform/http/pipeline.js';
import { auditLog } from '../shared/usage/routes/audit-log.js';

/** GET /api/org-api-keys?action=audit-log&org_id=<id>[&key_id=<id>][&audit_action=<a>][&outcome=<o>][&cursor=<c>][&limit=<n>] (bearer) */
export const handler = api(auditLog, { services: auditLogServices }, ({ query: { audit_action, ...query }, admin, services }) =>
  services.auditLog.read(admin, { ...query, action: audit_action }),
);
