import { catalogAdminServices } from '../shared/compose/catalog-admin.js';
import { api } from '../shared/http/api.js';
import { listGames } from '../shared/operations/list-games.js';

/** GET /api/org-api-keys?action=list-games&org_id=<id> (bearer; any member of `org_id`) */
export const handler = api(listGames, { services: catalogAdminServices }, ({ query, admin, services }) =>
  services.catalogAdmin.list(admin, query.org_id),
);
