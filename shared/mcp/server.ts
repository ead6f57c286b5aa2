/**
 * The MCP server of one request: a new `McpServer` each time (the transport is stateless), holding
 * exactly the tools the key's scopes grant, so `tools/list` shows those and nothing else.
 */
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import type { jsonSchemaValidator } from '@modelcontextprotocol/sdk/validation/types.js';
import { Forbidden, isRequestRefusal } from '../platform/errors.js';
import type { McpScope } from '../keys/index.js';
import { noteToolRefusal, countTokenEvent } from '../platform/observability.js';
import { API_VERSION } from '../platform/route.js';
import type { RequestMeter } from './metering.js';
import type { McpTool, ToolContext } from './tool.js';
import { TOOLS } from './tools/index.js';

const INSTRUCTIONS =
  'Tools of the Game Session Token Service. They act on the organization of the API key only, within ' +
  'its MCP scopes and allow-lists. create_session mints a single-use play link for a game or stream; update_game and ' +
  'update_stream turn "Require API Session Token" on or off; get_session_report counts sessions per day.';

/**
 * The SDK validates JSON Schemas only for elicitation (asking the user for input), which this
 * server never does. Its default validator builds an Ajv instance with every format for each
 * server, i.e. for each request (about 0.14 ms here); this one is free and refuses loudly.
 */
const NO_ELICITATION: jsonSchemaValidator = {
  getValidator: () => {
    throw new Error('this server does not elicit: no JSON Schema validation is needed');
  },
};

/**
 * The server for one request. Tools outside the key's scopes are not registered; only when this
 * request calls one by name (`called`) is a refusal registered in its place, so that the caller
 * learns which scope is missing instead of "not found".
 */
export function buildMcpServer(context: ToolContext, granted: ReadonlySet<McpScope>, called: string | undefined): McpServer {
  const server = new McpServer(
    { name: 'game-session-token-service', title: 'Game Session Token Service', version: API_VERSION },
    { capabilities: { tools: {} }, instructions: INSTRUCTIONS, jsonSchemaValidator: NO_ELICITATION },
  );
  for (const tool of TOOLS) {
    if (granted.has(tool.scope)) register(server, tool, context);
    else if (tool.name === called) registerRefusal(server, tool, context.meter);
  }
  return server;
}

function register(server: McpServer, tool: McpTool, context: ToolContext): void {
  server.registerTool(
    tool.name,
    { title: tool.title, description: tool.description, inputSchema: tool.input, outputSchema: tool.output, annotations: tool.annotations },
    (args) =>
      runTool(context.meter, async () => {
        const { data, summary } = await tool.run(args, context);
        countTokenEvent(tool.name);
        return { structuredContent: data as Record<string, unknown>, content: [{ type: 'text', text: summary }] };
      }),
  );
}

/** A tool the key may not call: counted and audited as a 403, answered as a tool error naming the scope. */
function registerRefusal(server: McpServer, tool: McpTool, meter: RequestMeter): void {
  const refusal = new Forbidden(`${tool.name} requires the MCP scope ${tool.scope}, which this API key does not have`);
  server.registerTool(tool.name, { title: tool.title, description: tool.description }, () =>
    runTool(meter, () => meter.refuse({}, refusal)),
  );
}

/**
 * Run a tool. A refusal of the request itself (invalid, not found, out of scope, gone:
 * `isRequestRefusal`, by THE error table) becomes a tool error with its message. The key's rate
 * limit and failures of the service end the HTTP request instead (429 with its headers, 5xx),
 * through `meter.failure`.
 */
async function runTool(meter: RequestMeter, work: () => Promise<CallToolResult>): Promise<CallToolResult> {
  try {
    return await work();
  } catch (error) {
    if (isRequestRefusal(error)) {
      // Answered as a tool error with HTTP 200: the request's line still says why.
      noteToolRefusal(meter.call, error);
      return { isError: true, content: [{ type: 'text', text: error.message }] };
    }
    meter.failure = error;
    return { isError: true, content: [{ type: 'text', text: 'Request failed' }] };
  }
}
