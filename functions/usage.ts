import { usageServices } from '../shared/compose/usage.js';
import { api } from '../shared/http/api.js';
import { usage } from '../shared/operations/usage.js';

/** GET /api/org-api-keys?action=usage&org_id=<id>&from=<day>&to=<day>[&key_id=<id>] (bearer; owner, admin or analyst) */
export const handler = api(usage, { services: usageServices }, ({ query, admin, services }) => services.usage.report(admin, query));
