import { mcpServices } from '../shared/mcp/services.js';
import { keyApi } from '../shared/keys/key-pipeline.js';
import { prefetchTool, serveMcp } from '../shared/mcp/endpoint.js';
import { assertAllowedOrigin } from '../shared/mcp/origin.js';
import { mcp } from '../shared/mcp/route.js';

/** POST /api/mcp (x-api-key or Authorization: Bearer dpk_…): MCP Streamable HTTP, stateless, JSON responses; Idempotency-Key on create_session */
export const handler = keyApi(
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
