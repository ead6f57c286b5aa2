/** The sessions feature as other features see it (session tokens): import it from here, never from its files (eslint.config.js). */
export { statusAt, type TokenRecord } from './model.js';
export { PLAY_CATALOG_STALENESS_MS, PlayableCache } from './playable-cache.js';
export { type TokenStore } from './ports.js';
export { consumeSession } from './routes/consume-session.js';
export { createSession } from './routes/create-session.js';
export { revokeSession } from './routes/revoke-session.js';
export { validateSession } from './routes/validate-session.js';
export { ConsumedSession, CreateSessionFields, CreatedSession, IdempotencyKeyHeader, ReplayedHeader, SessionView } from './schemas.js';
export { type SessionTokens } from './session-tokens.js';
export { allowsItem, isAllowed, outOfScope, type KeyScope, type Target } from './scope.js';
export { sessionServices, sessionTokens, tokenStore, type SessionServices } from './services.js';
export { tokenRecordOf } from './token-item.js';
export { REPORT_SHARDS } from './token-store.js';
export { registerSessionDocs } from './schema-docs.js';
