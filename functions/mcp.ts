import { mcpServices } from '../shared/compose/mcp.js';
import { api } from '../shared/http/api.js';
import { serveMcp } from '../shared/mcp/endpoint.js';
import { idempotentToolCall } from '../shared/mcp/idempotency.js';
import { McpRequestBody } from '../shared/schemas/mcp.js';

/** POST /api/mcp (x-api-key or Authorization: Bearer dpk_…): MCP Streamable HTTP, stateless, JSON responses; Idempotency-Key on create_session */
export const handler = api(
  { operation: 'mcp', services: mcpServices, body: McpRequestBody, raw: true, idempotent: idempotentToolCall },
  ({ body, credential, call, services, event, once }) =>
    serveMcp(
      { message: body, credential, call, headers: event.headers, url: new URL(event.rawPath, services.env.PUBLIC_BASE_URL).href },
      services,
      once,
    ),
);
