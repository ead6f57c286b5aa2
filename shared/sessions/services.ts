/** The sessions feature's parts: its token adapter, and the session domain with the key calls that meter it. */
import { catalogStore } from '../catalog/index.js';
import type { KeyCalls } from '../keys/index.js';
import { keyCalls } from '../keys/index.js';
import { IdPermutation } from '../platform/id-permutation.js';
import { IdAllocator } from '../platform/ids.js';
import { secret } from '../platform/secrets.js';
import { coreServices, part, sequenceStore, storeOptions, type CoreServices } from '../platform/services.js';
import { PlayableCache } from './playable-cache.js';
import { SessionReads, SessionTokens } from './session-tokens.js';
import { Sessions } from './sessions.js';
import { DynamoTokenStore } from './token-store.js';

export const tokenStore = /* @__PURE__ */ part(() => new DynamoTokenStore(storeOptions('tokens')));

/**
 * Session ids: blocks of 100 (one counter write per 100 consumptions per container) drawn from 32
 * sequence items (a burst of cold containers spreads over them: 32,000 block reservations a second
 * before any item is hot), permuted under SESSION_ID_KEY (SECURITY.md, "Session ids").
 */
const SESSION_IDS = { sequence: 'session_id', shards: 32, blockSize: 100, prefetch: true } as const;

/** The session ids of consumptions (one allocator per container). */
const sessionIds = /* @__PURE__ */ part(() => {
  const { env } = coreServices();
  return new IdAllocator(sequenceStore(), { ...SESSION_IDS, permutation: new IdPermutation(() => secret(env, 'SESSION_ID_KEY')) });
});

/** validate-session's part: one token read, nothing else (no key calls, no session ids). */
export const sessionReads = /* @__PURE__ */ part(() => {
  const core = coreServices();
  return { ...core, sessions: new SessionReads({ tokens: tokenStore(), clock: core.clock }) };
});

/** consume-session's part: the token and the consumption's session id (no key calls). */
export const sessionTokens = /* @__PURE__ */ part(() => {
  const core = coreServices();
  return { ...core, sessions: new SessionTokens({ tokens: tokenStore(), clock: core.clock, sessionIds: sessionIds() }) };
});

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
    clock,
    tokenRetentionDays: env.TOKEN_RETENTION_DAYS,
  });
  return { ...core, keyCalls: keyCalls(), sessions };
});
