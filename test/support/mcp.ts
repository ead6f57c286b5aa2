/** MCP clients for the tests: the SDK's own client and transport against the local stack, and raw posts. */
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import type { McpScope } from '../../shared/keys/mcp-scopes.js';
import type { Stack } from './local-stack.js';

export const MCP_PATH = '/api/mcp';

/** Every scope this service has tools for. */
export const TOOL_SCOPES: McpScope[] = [
  'mcp:sessions:write',
  'mcp:games:read',
  'mcp:games:write',
  'mcp:streams:read',
  'mcp:streams:write',
  'mcp:reports:read',
  'mcp:connections:read',
  'mcp:connections:write',
];

/** Every tool, in the server's order. */
export const ALL_TOOLS = [
  'create_session',
  'revoke_session',
  'list_games',
  'get_game',
  'update_game',
  'list_streams',
  'get_stream',
  'update_stream',
  'get_session_report',
  'list_webhooks',
  'create_webhook',
  'update_webhook',
  'delete_webhook',
  'list_webhook_deliveries',
  'retry_webhook_delivery',
  'recover_webhook_deliveries',
];

/** How the key is presented. */
export type Presentation = 'x-api-key' | 'bearer';

/** Connect a real MCP client with a key (initialize + initialized notification: two HTTP requests). */
export async function connectMcp(stack: Stack, rawKey: string, via: Presentation = 'x-api-key'): Promise<Client> {
  const client = new Client({ name: 'gsts-test', version: '1.0.0' });
  const headers = via === 'bearer' ? { authorization: `Bearer ${rawKey}` } : { 'x-api-key': rawKey };
  stack.secrets.noteRawKey(rawKey);
  await client.connect(
    new StreamableHTTPClientTransport(new URL(MCP_PATH, stack.baseUrl), { requestInit: { headers }, fetch: notingFetch(stack) }),
  );
  return client;
}

/** `fetch` that shows the stack's secrets ledger the tokens of every MCP answer, so leak checks cover them. */
function notingFetch(stack: Stack): typeof fetch {
  return async (input, init) => {
    const response = await fetch(input, init);
    stack.secrets.noteText(await response.clone().text());
    return response;
  };
}

/** Call a tool; the result typed as a tool result (structured content and text). */
export async function callTool(client: Client, name: string, args: Record<string, unknown> = {}): Promise<CallToolResult> {
  return (await client.callTool({ name, arguments: args })) as CallToolResult;
}

/** The text of a tool result's first content block. */
export function textOf(result: CallToolResult): string {
  const first = result.content[0];
  return first?.type === 'text' ? first.text : '';
}

/** The headers a Streamable HTTP client sends with a JSON-RPC POST. */
export const MCP_HEADERS = { 'content-type': 'application/json', accept: 'application/json, text/event-stream' } as const;

/** POST one raw JSON-RPC message (or any body) to the endpoint. */
export function postMcp(stack: Stack, body: unknown, headers: Record<string, string> = {}) {
  return stack.request(MCP_PATH, {
    method: 'POST',
    headers: { ...MCP_HEADERS, ...headers },
    body: typeof body === 'string' ? body : JSON.stringify(body),
  });
}

/** An `initialize` request as a client sends it. */
export const INITIALIZE = {
  jsonrpc: '2.0',
  id: 1,
  method: 'initialize',
  params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'raw', version: '1' } },
} as const;
