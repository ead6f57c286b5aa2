/**
 * The MCP scopes a key may carry: the specification's table, nothing else (deny-by-default). Key
 * management validates against this list; the MCP server decides with it which tools a key sees.
 */
export const MCP_SCOPES = [
  'mcp:templates:read',
  'mcp:games:read',
  'mcp:games:write',
  'mcp:streams:read',
  'mcp:streams:write',
  'mcp:connections:read',
  'mcp:connections:write',
  'mcp:gallery:read',
  'mcp:gallery:write',
  'mcp:vouchers:read',
  'mcp:vouchers:write',
  'mcp:reports:read',
  'mcp:ai',
  'mcp:sessions:write',
] as const;

/** One scope name of the specification. */
export type McpScope = (typeof MCP_SCOPES)[number];

/** True for a scope name of the specification's table. */
export function isMcpScope(name: string): name is McpScope {
  return (MCP_SCOPES as readonly string[]).includes(name);
}
