/** The keys feature as other features see it (API keys: authentication, metering, administration): import it from here, never from its files (eslint.config.js). */
export { idempotencyServices, type IdempotencyServices, type IdempotencyStore } from './idempotency-store.js';
export { type CallSubject, type Effect } from './call-records.js';
export { type KeyCalls } from './key-calls.js';
export { keyApi } from './key-pipeline.js';
export { isMcpScope, scopeOfTool, type McpScope } from './mcp-scopes.js';
export { type ApiKeyRecord } from './model.js';
export { createKey } from './routes/create-key.js';
export { deleteKey } from './routes/delete-key.js';
export { listKeys } from './routes/list-keys.js';
export { rotateKey } from './routes/rotate-key.js';
export { updateKey } from './routes/update-key.js';
export { keyCalls, keyStore } from './services.js';
export type { KeyDeletion } from './ports.js';
// The webhooks feature's key events: the key as the list shows it, and a rate window.
export { keyView } from './key-views.js';
export { ApiKeyView } from './schemas.js';
export type { RateWindow } from './rate-limit.js';
