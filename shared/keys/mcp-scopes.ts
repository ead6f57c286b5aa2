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

/**
 * THE table of which tools each scope grants on this server (the tools take their scope from it:
 * shared/mcp/tools/). A scope with no tool is the specification's and a key may carry it, but it
 * grants nothing here yet; the console says so beside it.
 */
export const MCP_SCOPE_TOOLS = {
  'mcp:templates:read': [],
  'mcp:games:read': ['list_games', 'get_game'],
  'mcp:games:write': ['update_game'],
  'mcp:streams:read': ['list_streams', 'get_stream'],
  'mcp:streams:write': ['update_stream'],
  'mcp:connections:read': ['list_webhooks', 'list_webhook_deliveries'],
  'mcp:connections:write': ['create_webhook', 'update_webhook', 'delete_webhook', 'retry_webhook_delivery', 'recover_webhook_deliveries'],
  'mcp:gallery:read': [],
  'mcp:gallery:write': [],
  'mcp:vouchers:read': [],
  'mcp:vouchers:write': [],
  'mcp:reports:read': ['get_session_report'],
  'mcp:ai': [],
  'mcp:sessions:write': ['create_session', 'revoke_session'],
} as const satisfies Record<McpScope, readonly string[]>;

/** The scopes that grant a tool here, in {@link MCP_SCOPES} order (the local run's demo MCP key carries them all). */
export const TOOL_SCOPES: readonly McpScope[] = MCP_SCOPES.filter((scope) => MCP_SCOPE_TOOLS[scope].length > 0);

/** The name of one tool of the MCP server. */
export type McpToolName = (typeof MCP_SCOPE_TOOLS)[McpScope][number];

/** The scope that grants the tool `name` (from {@link MCP_SCOPE_TOOLS}). */
export function scopeOfTool(name: McpToolName): McpScope {
  return MCP_SCOPES.find((scope) => (MCP_SCOPE_TOOLS[scope] as readonly string[]).includes(name))!;
}

/** The tools `scope` grants here: none for a scope of the specification that has no tool on this server yet. */
export function toolsOfScope(scope: McpScope): readonly McpToolName[] {
  return MCP_SCOPE_TOOLS[scope];
}
