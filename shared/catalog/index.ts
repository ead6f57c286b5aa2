/** The catalog feature as other features see it (organizations, members, games and streams): import it from here, never from its files (eslint.config.js). */
export { AdminAccess } from './admin-access.js';
export { orgKey } from './catalog-store.js';
export { startModeOf, tierAllowsApi, type Org, type Playable, type Role, type StartMode, type Tier } from './model.js';
export { OrgCatalog, playableView } from './org-catalog.js';
export { type CatalogStore } from './ports.js';
export { listGames } from './routes/list-games.js';
export { listOrgs } from './routes/list-orgs.js';
export { updateGame } from './routes/update-game.js';
export { updateStream } from './routes/update-stream.js';
export { PlayUrl, PlayableChanges, PlayableFields, someChange } from './schemas.js';
export { catalogStore } from './services.js';
