import { catalogAdminServices } from '../shared/catalog/services.js';
import { api } from '../shared/platform/http/pipeline.js';
import { updateGame } from '../shared/catalog/routes/update-game.js';

/** PATCH /api/org-api-keys?action=update-game (bearer; owner, admin or editor of `org_id`) */
export const handler = api(updateGame, { services: catalogAdminServices }, ({ body: { game_id, ...changes }, admin, call, services }) =>
  services.catalogAdmin.update(admin, 'game', { ...changes, id: game_id }, call),
);
