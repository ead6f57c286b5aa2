import { mcpServices } from '../shared/compose/mcp.js';
import { api } from '../shared/http/api.js';
import { serveMcp } from '../shared/mcp/endpoint.js';
import { idempotentToolCall } from '../shared/mcp/idempotency.js';
import { assertAllowedOrigin } from '../shared/mcp/origin.js';
import { McpRequestBody } from '../shared/schemas/mcp.js';

/** POST /api/mcp (x-api-key or Authorization: Bearer dpk_…): MCP Streamable HTTP, stateless, JSON responses; Idempotency-Key on create_session */
export const handler = api(
  {
    operation: 'mcp',
    services: mcpServices,
    body: McpRequestBody,
    raw: true,
    idempotent: idempotentToolCall,
    // Browsers only from the allow-list (DNS rebinding), before the key is even looked at.
    guard: (event, services) => assertAllowedOrigin(event.headers.origin, services.env.MCP_ALLOWED_ORIGINS),
  },
  ({ body, credential, call, services, event, once }) =>
    serveMcp(
      { message: body, credential, call, headers: event.headers, url: new URL(event.rawPath, services.env.PUBLIC_BASE_URL).href },
      services,
      once,
    ),
);
