import { GamesAndStreams, ListGamesQuery } from '../schemas.js';
import { API_PATH, defineOperation } from '../../platform/route.js';
import { catalogAdminServices } from '../admin-services.js';
import { api } from '../../platform/http/pipeline.js';

/**
 * list-games: any member of an organization lists its games and streams (bearer), with their
 * "Require API Session Token" setting and play page: the MCP list tools' view, both kinds at once.
 * The membership, the org and both lists (the catalog's `by_org` index) are read in one round trip.
 */
export const listGames = defineOperation({
  operation: 'list-games',
  function: 'list-games',
  data: { catalog: ['GetItem', 'Query'] },
  parts: ['catalogAdmin'],
  method: 'GET',
  path: API_PATH,
  action: 'list-games',
  auth: 'bearer',
  capacity: 'admin',
  summary: 'List the organization’s games and streams with their “Require API Session Token” setting',
  query: ListGamesQuery,
  response: GamesAndStreams,
});

/** GET /api/org-api-keys?action=list-games&org_id=<id> (bearer; any member of `org_id`) */
export const handler = /* @__PURE__ */ api(listGames, { services: catalogAdminServices }, ({ query, admin, services }) =>
  services.catalogAdmin.list(admin, query.org_id),
);
