/**
 * `Idempotency-Key` on the MCP endpoint: a `tools/call` of a tool that creates something
 * (`create_session`) is idempotent per API key exactly as REST create-session is. The stored answer
 * is the JSON-RPC response; a replay carries the id of the request it answers. Any other message
 * ignores the header (listing and reading are safe to repeat anyway).
 */
import type { APIGatewayProxyStructuredResultV2 } from 'aws-lambda';
import type { IdempotentCall } from '../platform/route.js';
import type { McpRequestBody } from './schemas.js';

/** A JSON-RPC notification: a message without `id` (JSON-RPC 2.0 §4.1), never answered with a result. */
export function isNotification(message: McpRequestBody): boolean {
  return message.id === undefined;
}

/**
 * Whether a message runs ahead of its key's read (`RouteDefinition.ahead`): a call of
 * `create_session`, which writes only what nobody else can see before it answers (a new token, its
 * count and audit record), as REST create-session does. Other tools write shared items, or spend
 * the org's report budget, only once the key is read.
 */
export function runsAheadOfKey(message: McpRequestBody): boolean {
  return message.method === 'tools/call' && message.params?.name === 'create_session' && !isNotification(message);
}

/** Tools whose calls honour `Idempotency-Key`. */
const IDEMPOTENT_TOOLS: ReadonlySet<string> = new Set(['create_session']);

/**
 * The idempotency of an MCP message: for a call of an idempotent tool, keyed by tool, matched on its
 * arguments. A notification (no `id`) runs no tool (docs/mcp.md, "Notifications"): it claims nothing,
 * so it can never leave an empty answer for a later call to replay.
 */
export function idempotentToolCall(message: McpRequestBody): IdempotentCall | undefined {
  const name = message.params?.name;
  if (message.method !== 'tools/call' || typeof name !== 'string' || !IDEMPOTENT_TOOLS.has(name)) return undefined;
  if (isNotification(message)) return undefined;
  return {
    namespace: `mcp:${name}`,
    // The request's audit action (`endpoint.ts`), for a claim refused before the tool runs.
    action: `mcp:tools/call:${name}`,
    payload: message.params?.arguments ?? {},
    replay: (stored) => readdressedTo(stored, message.id),
  };
}

/** A stored JSON-RPC answer, re-addressed to the request it now answers (a retry may use another id). */
function readdressedTo(stored: APIGatewayProxyStructuredResultV2, id: McpRequestBody['id']): APIGatewayProxyStructuredResultV2 {
  if (id === undefined || typeof stored.body !== 'string') return stored;
  const parsed: unknown = JSON.parse(stored.body);
  if (typeof parsed !== 'object' || parsed === null || !('jsonrpc' in parsed)) return stored;
  return { ...stored, body: JSON.stringify({ ...parsed, id }) };
}
