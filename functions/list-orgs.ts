import { api } from '../shared/http/api.js';
import { orgsServices } from '../shared/compose/orgs.js';
import { listOrgs } from '../shared/operations/list-orgs.js';

/** GET /api/org-api-keys?action=list-orgs (bearer; any subject: only its own memberships) */
export const handler = api(listOrgs, { services: orgsServices }, ({ admin, services }) => services.memberships.list(admin));
