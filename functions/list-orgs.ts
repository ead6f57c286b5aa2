import { api } from '../shared/platform/http/pipeline.js';
import { orgsServices } from '../shared/catalog/org-services.js';
import { listOrgs } from '../shared/catalog/routes/list-orgs.js';

/** GET /api/org-api-keys?action=list-orgs (bearer; any subject: only its own memberships) */
export const handler = api(listOrgs, { services: orgsServices }, ({ admin, services }) => services.memberships.list(admin));
