/**
 * The steps `test/infra/bundle-mcp.test.ts` runs against the bundled MCP, create-session and
 * validate-session functions, in one child Node process per configuration (`bundled-child.ts`), and
 * the `tools/list` answer of the unbundled server that the bundle's must equal.
 */
import { WebStandardStreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js';
import { LATEST_PROTOCOL_VERSION } from '@modelcontextprotocol/sdk/types.js';
import type { McpScope } from '../../shared/keys/mcp-scopes.js';
import { buildMcpServer } from '../../shared/mcp/server.js';
import type { ToolContext } from '../../shared/mcp/tool.js';
import { API_PATH } from '../../shared/platform/route.js';
import { routedTarget, runBundled, type Reply } from './bundled-child.js';
import type { BundledService } from './bundled.js';
import { MCP_HEADERS, MCP_PATH } from './mcp.js';

/** What the steps use: the full and the limited key, a game requiring a token and an open one (org 1). */
export interface McpStepsInput {
  readonly fullKey: string;
  readonly limitedKey: string;
  readonly gameId: number;
  readonly openGameId: number;
}

/** Run the steps in one fresh Node process with the given environment; the answers by step name. */
export async function runMcp(
  service: BundledService,
  configuration: string,
  env: Record<string, string>,
  { fullKey, limitedKey, gameId, openGameId }: McpStepsInput,
): Promise<Record<string, Reply>> {
  const bundles = service.bundles;
  return runBundled<Record<string, Reply>>(MCP_SCRIPT, {
    env,
    service,
    targets: {
      mcp: routedTarget(bundles, 'POST', MCP_PATH),
      'create-session': routedTarget(bundles, 'POST', API_PATH, 'create-session'),
      'validate-session': routedTarget(bundles, 'GET', API_PATH, 'validate-session'),
    },
    label: 'mcp',
    input: {
      run: configuration,
      fullKey,
      limitedKey,
      gameId,
      openGameId,
      protocolVersion: LATEST_PROTOCOL_VERSION,
      headers: MCP_HEADERS,
    },
  });
}

/** The child's script (after the shared prelude: `input`, `invoke`, `step`, `done`). */
const MCP_SCRIPT = `
  const rpc = (id, method, params) => ({ jsonrpc: '2.0', id, method, ...(params === undefined ? {} : { params }) });
  const tool = (id, name, args) => rpc(id, 'tools/call', { name, arguments: args });
  async function mcp(name, message, headers) {
    await step(name);
    return invoke('mcp', { headers: { ...input.headers, ...headers }, body: message });
  }
  async function rest(name, operation, options) {
    await step(name);
    return invoke(operation, options);
  }

  const steps = {};
  const full = { 'x-api-key': input.fullKey };
  const clientInfo = { name: 'bundle-mcp', version: '1.0.0' };
  steps.initialize = await mcp('initialize', rpc(1, 'initialize', { protocolVersion: input.protocolVersion, capabilities: {}, clientInfo }), full);
  const version = { 'mcp-protocol-version': steps.initialize.body.result?.protocolVersion ?? input.protocolVersion };
  steps.initialized = await mcp('initialized', { jsonrpc: '2.0', method: 'notifications/initialized' }, { ...full, ...version });
  steps.list = await mcp('list', rpc(2, 'tools/list'), { authorization: 'Bearer ' + input.fullKey, ...version });
  const order = { game_id: input.gameId, external_ref: input.run + '-mcp-order', metadata: { source: 'bundle-mcp' } };
  steps.created = await mcp('created', tool(3, 'create_session', order), { ...full, ...version });
  const token = steps.created.body.result?.structuredContent?.token;
  steps.validated = await rest('validated', 'validate-session', { query: { token } });

  const limited = { 'x-api-key': input.limitedKey, ...version };
  steps.limitedList = await mcp('limitedList', rpc(4, 'tools/list'), limited);
  steps.outOfScope = await mcp('outOfScope', tool(5, 'update_game', { game_id: input.openGameId, require_session_token: true }), limited);

  const idempotencyKey = input.run + '-retry-1';
  const once = { ...full, ...version, 'idempotency-key': idempotencyKey };
  const args = { game_id: input.gameId, external_ref: input.run + '-mcp-idem' };
  steps.mcpFirst = await mcp('mcpFirst', tool(6, 'create_session', args), once);
  steps.mcpReplay = await mcp('mcpReplay', tool(7, 'create_session', args), once);
  steps.mcpOther = await mcp('mcpOther', tool(8, 'create_session', { ...args, game_id: input.openGameId }), once);

  const restOnce = { ...full, 'idempotency-key': idempotencyKey };
  const body = { game_id: input.gameId, external_ref: input.run + '-rest-idem' };
  steps.restFirst = await rest('restFirst', 'create-session', { headers: restOnce, body });
  steps.restReplay = await rest('restReplay', 'create-session', { headers: restOnce, body });
  steps.restOther = await rest('restOther', 'create-session', { headers: restOnce, body: { ...body, game_id: input.openGameId } });
  await step('end');
  done(steps);
`;

/**
 * The `tools/list` answer of the unbundled server (this process, the sources) for a key with these
 * scopes, through the same transport the endpoint uses: what the bundle must publish too.
 */
export async function unbundledTools(scopes: readonly McpScope[]): Promise<unknown[]> {
  // Listing runs no tool: the tool context is never read.
  const server = buildMcpServer({} as ToolContext, new Set(scopes), undefined);
  const transport = new WebStandardStreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: true });
  await server.connect(transport);
  try {
    const response = await transport.handleRequest(
      new Request(`http://unbundled.test${MCP_PATH}`, {
        method: 'POST',
        headers: { ...MCP_HEADERS, 'mcp-protocol-version': LATEST_PROTOCOL_VERSION },
      }),
      { parsedBody: { jsonrpc: '2.0', id: 1, method: 'tools/list' } },
    );
    const answer = (await response.json()) as { result: { tools: unknown[] } };
    return answer.result.tools;
  } finally {
    await server.close();
  }
}
