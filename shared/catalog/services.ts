/**
 * The catalog feature's parts: its adapter, the games-and-streams part for org members (bearer: list,
 * change a game's or stream's settings) and the org picker's.
 */
import { part, storeOptions } from '../platform/services.js';
import { DynamoCatalogStore } from './catalog-store.js';

export const catalogStore = /* @__PURE__ */ part(() => new DynamoCatalogStore(storeOptions('catalog')));
