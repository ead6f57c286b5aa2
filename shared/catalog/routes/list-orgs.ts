import { OrgMemberships } from '../org-schemas.js';
import { API_PATH, defineOperation } from '../../platform/route.js';
import { api } from '../../platform/http/pipeline.js';
import { orgsServices } from '../admin-services.js';

/**
 * list-orgs: the organizations the bearer token's subject belongs to, with its role in each (the
 * console's org picker). Any signed-in subject may call it: it shows only their own memberships.
 * The subject's memberships (the catalog's `by_org` index, `SUBJECT#<sub>`), then the orgs' names
 * and tiers (one BatchGetItem): two round trips.
 */
export const listOrgs = defineOperation({
  operation: 'list-orgs',
  function: 'list-orgs',
  data: { catalog: ['Query', 'BatchGetItem'] },
  parts: ['orgs'],
  method: 'GET',
  path: API_PATH,
  action: 'list-orgs',
  auth: 'bearer',
  capacity: 'admin',
  summary: 'List the organizations the signed-in subject belongs to, with its role in each',
  response: OrgMemberships,
});

/** GET /api/org-api-keys?action=list-orgs (bearer; any subject: only its own memberships) */
export const handler = /* @__PURE__ */ api(listOrgs, { services: orgsServices }, ({ admin, services }) => services.memberships.list(admin));
