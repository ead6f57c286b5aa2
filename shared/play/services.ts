/** The play pages' part. */
import { PlayPages } from './play.js';
import { PLAY_CATALOG_STALENESS_MS, PlayableCache } from '../sessions/index.js';
import { PlayPassSigner } from './play-pass.js';
import { coreServices, part, type CoreServices } from '../platform/services.js';
import { catalogStore } from '../catalog/index.js';
import { sessionTokens, tokenStore } from '../sessions/index.js';
import { secret } from '../platform/secrets.js';

/** A play session (refreshes keep playing) lasts this long after the token is consumed. */
const PLAY_PASS_SECONDS = 4 * 3600;

/** What the play-page function needs. */
export interface PlayServices extends CoreServices {
  readonly play: PlayPages;
}

/** The play part of this container's services. */
export const playServices = /* @__PURE__ */ part((): PlayServices => {
  const core = coreServices();
  const { clock, env } = core;
  const play = new PlayPages({
    // Pages may see a game's settings up to 5 s old (documented): a viral game costs one read per container and 5 s.
    catalog: new PlayableCache(catalogStore(), clock, { ttlMs: PLAY_CATALOG_STALENESS_MS, orgs: true }),
    tokens: tokenStore(),
    // The partner API's consumption (one conditional write; session ids from the counters' blocks).
    sessions: sessionTokens().sessions,
    clock,
    // Read at first use: open games play even where no secret is configured; tokened ones fail loudly.
    passes: new PlayPassSigner(() => secret(env, 'PLAY_COOKIE_SECRET')),
    passSeconds: PLAY_PASS_SECONDS,
  });
  return { ...core, play };
});
