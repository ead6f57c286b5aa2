/** The sessions feature's parts: its token adapter, and the session domain with the key calls that meter it. */
import { catalogStore } from '../catalog/services.js';
import type { KeyCalls } from '../keys/key-calls.js';
import { counterStore, keyCalls } from '../keys/services.js';
import { IdPermutation } from '../platform/id-permutation.js';
import { secret } from '../platform/secrets.js';
import { coreServices, part, storeOptions, type CoreServices } from '../platform/services.js';
import { PlayableCache } from './playable-cache.js';
import { SessionIdAllocator } from './session-ids.js';
import { Sessions } from './sessions.js';
import { DynamoTokenStore } from './token-store.js';

export const tokenStore = /* @__PURE__ */ part(() => new DynamoTokenStore(storeOptions('tokens')));

/**
 * Session ids: blocks of 100 (one counter write per 100 consumptions per container) drawn from 32
 * sequence items (a burst of cold containers spreads over them: 32,000 block reservations a second
 * before any item is hot), permuted under SESSION_ID_KEY (SECURITY.md, "Session ids").
 */
const SESSION_IDS = { sequence: 'session_id', shards: 32, blockSize: 100 } as const;

/** What the session functions (and the MCP tools) need. */
export interface SessionServices extends CoreServices {
  /** Authenticates an API key and meters its calls (rate windows, audit). */
  readonly keyCalls: KeyCalls;
  readonly sessions: Sessions;
}

/** The session part of this container's services. */
export const sessionServices = /* @__PURE__ */ part((): SessionServices => {
  const core = coreServices();
  const { clock, env } = core;
  const sessions = new Sessions({
    tokens: tokenStore(),
    // Games and streams never change org and are never deleted: a warm create-session reads only the key.
    catalog: new PlayableCache(catalogStore(), clock),
    keyCalls: keyCalls(),
    sessionIds: new SessionIdAllocator(counterStore(), new IdPermutation(() => secret(env, 'SESSION_ID_KEY')), SESSION_IDS),
    clock,
    tokenRetentionDays: env.TOKEN_RETENTION_DAYS,
  });
  return { ...core, keyCalls: keyCalls(), sessions };
});
