import { catalogAdminServices } from '../shared/catalog/services.js';
import { api } from '../shared/platform/http/pipeline.js';
import { listGames } from '../shared/catalog/routes/list-games.js';

/** GET /api/org-api-keys?action=list-games&org_id=<id> (bearer; any member of `org_id`) */
export const handler = api(listGames, { services: catalogAdminServices }, ({ query, admin, services }) =>
  services.catalogAdmin.list(admin, query.org_id),
);
