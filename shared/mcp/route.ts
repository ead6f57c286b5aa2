import { idempotentToolCall, runsAheadOfKey } from './idempotency.js';
import { McpRequestBody, McpResponseBody } from './schemas.js';
import { IdempotencyKeyHeader, ReplayedHeader } from '../sessions/index.js';
import { defineOperation } from '../platform/route.js';
import { mcpServices } from './services.js';
import { keyApi } from '../keys/index.js';
import { prefetchTool, serveMcp } from './endpoint.js';
import { assertAllowedOrigin } from './origin.js';

/**
 * mcp: the MCP server (one function and one operation for every JSON-RPC method). Each request
 * authenticates and meters like create-session; its tools mint and revoke tokens (and undo them when
 * the call is refused), read and change the org's games and streams, and read the session report
 * (the tokens' report index and the usage rollup, after the org's report budget).
 */
export const mcp = defineOperation({
  operation: 'mcp',
  function: 'mcp',
  data: {
    keys: ['GetItem', 'UpdateItem'],
    // GetItem and PutItem also: the day's counter layout after a limit change (CounterLayouts in shared/keys/rate-limit.ts).
    counters: ['UpdateItem', 'GetItem', 'PutItem'],
    // UpdateItem and Query: the usage rollup (refused calls), counted and read. DeleteItem: the
    // record of a create_session ahead of its key's read that is served again or replayed.
    audit: ['PutItem', 'UpdateItem', 'Query', 'DeleteItem'],
    // PutItem, DeleteItem: the webhook tools' endpoints (create and delete, each in one transaction with the org's count).
    catalog: ['GetItem', 'Query', 'UpdateItem', 'PutItem', 'DeleteItem'],
    // The webhook tools' deliveries: listed, read and made due again (retry_webhook_delivery).
    webhooks: ['Query', 'GetItem', 'UpdateItem'],
    // GetItem: the token a key with an allow-list revokes (revoke_session); Query: the report index.
    tokens: ['PutItem', 'DeleteItem', 'UpdateItem', 'GetItem', 'Query'],
    // create_session with an `Idempotency-Key`, as REST create-session.
    idempotency: ['PutItem', 'UpdateItem', 'DeleteItem'],
  },
  sendsTo: ['webhook-deliveries'],
  parts: ['sessions', 'idempotency', 'mcp'],
  method: 'POST',
  path: '/api/mcp',
  auth: 'apiKey',
  capacity: 'key',
  summary: 'Remote MCP server for agents (Streamable HTTP, stateless, JSON responses); tools by the key’s MCP scopes',
  // The JSON-RPC answer is the MCP SDK's, not the envelope; HTTP-level refusals (401, 403, 429) are.
  body: McpRequestBody,
  response: McpResponseBody,
  reply: 'transport',
  // `Idempotency-Key` applies to tools/call of create_session only (the same rules as REST).
  headers: IdempotencyKeyHeader,
  responseHeaders: ReplayedHeader,
  errors: [409, 422],
  idempotent: idempotentToolCall,
  // create_session of a key this container last read valid: one stage, as REST create-session.
  ahead: runsAheadOfKey,
});

/** POST /api/mcp (x-api-key or Authorization: Bearer dpk_…): MCP Streamable HTTP, stateless, JSON responses; Idempotency-Key on create_session */
export const handler = /* @__PURE__ */ keyApi(
  mcp,
  {
    services: mcpServices,
    // The called tool's reads that need no key (create_session: the game or stream), alongside authentication.
    prefetch: ({ body }, services) => prefetchTool(body, services),
    // Browsers only from the allow-list (DNS rebinding), before the key is even looked at.
    guard: (event, services) => assertAllowedOrigin(event.headers.origin, services.env.MCP_ALLOWED_ORIGINS),
  },
  ({ body, key, call, services, event, prefetched }) =>
    serveMcp(
      { message: body, key, call, headers: event.headers, url: new URL(event.rawPath, services.env.PUBLIC_BASE_URL).href },
      services,
      prefetched,
    ),
);
