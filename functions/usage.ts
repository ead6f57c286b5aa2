import { usageServices } from '../shared/usage/services.js';
import { api } from '../shared/platform/http/pipeline.js';
import { usage } from '../shared/usage/routes/usage.js';

/** GET /api/org-api-keys?action=usage&org_id=<id>&from=<day>&to=<day>[&key_id=<id>] (bearer; owner, admin or analyst) */
export const handler = api(usage, { services: usageServices }, ({ query, admin, services }) => services.usage.report(admin, query));
