import { api } from '../shared/http/api.js';
import { serveMcp } from '../shared/mcp/endpoint.js';
import { McpRequestBody } from '../shared/schemas/mcp.js';

/** POST /api/mcp (x-api-key or Authorization: Bearer dpk_…): MCP Streamable HTTP, stateless, JSON responses */
export const handler = api({ operation: 'mcp', body: McpRequestBody, raw: true }, ({ body, credential, call, services, event }) =>
  serveMcp(
    { message: body, credential, call, headers: event.headers, url: new URL(event.rawPath, services.env.PUBLIC_BASE_URL).href },
    services,
  ),
);
