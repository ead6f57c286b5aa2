/** The session functions' part: key calls (authenticate and meter) and the session domain. */
import { BlockIdAllocator } from '../domain/ids.js';
import { KeyCalls } from '../domain/key-calls.js';
import { PlayableCache } from '../domain/playable-cache.js';
import { Sessions } from '../domain/sessions.js';
import { logger } from '../http/logger.js';
import { coreServices, part, type CoreServices } from './base.js';
import { auditStore, catalogStore, counterStore, keyStore, tokenStore } from './stores.js';

/** Ids reserved per block: one counter update per this many consumptions, per container. */
const SESSION_ID_BLOCK = 100;

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
  const keyCalls = new KeyCalls({
    keys: keyStore(),
    counters: counterStore(),
    audit: auditStore(),
    clock,
    auditRetentionDays: env.AUDIT_RETENTION_DAYS,
    onBackgroundError: (error, what) => logger.warn(`background write failed: ${what}`, { error: error as Error }),
  });
  const sessions = new Sessions({
    tokens: tokenStore(),
    // Games and streams never change org and are never deleted: a warm create-session reads only the key.
    catalog: new PlayableCache(catalogStore(), clock),
    keyCalls,
    sessionIds: new BlockIdAllocator(counterStore(), 'session_id', SESSION_ID_BLOCK),
    clock,
    tokenRetentionDays: env.TOKEN_RETENTION_DAYS,
  });
  return { ...core, keyCalls, sessions };
});
