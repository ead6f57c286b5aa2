import { UpdateGameBody, GameView } from '../schemas.js';
import { API_PATH, defineOperation } from '../../platform/route.js';
import { catalogAdminServices } from '../admin-services.js';
import { api } from '../../platform/http/pipeline.js';

/**
 * update-game: an owner, admin or editor renames a game of the organization, turns its "Require API
 * Session Token" setting on or off or sets how its play pages start (bearer): the MCP update_game tool's domain. The game is read
 * alongside the membership and the org, then changed (one conditional write) beside its audit record.
 */
export const updateGame = defineOperation({
  operation: 'update-game',
  function: 'update-game',
  data: { catalog: ['GetItem', 'UpdateItem'], audit: ['PutItem'] },
  parts: ['catalogAdmin'],
  method: 'PATCH',
  path: API_PATH,
  action: 'update-game',
  auth: 'bearer',
  capacity: 'admin',
  summary: 'Change a game of the organization: its name, its “Require API Session Token” setting or how its play pages start',
  body: UpdateGameBody,
  response: GameView,
  errors: [404],
});

/** PATCH /api/org-api-keys?action=update-game (bearer; owner, admin or editor of `org_id`) */
export const handler = /* @__PURE__ */ api(
  updateGame,
  { services: catalogAdminServices },
  ({ body: { game_id, ...changes }, admin, call, services }) =>
    services.catalogAdmin.update(admin, 'game', { ...changes, id: game_id }, call),
);
