/**
 * `POST /api/mcp`: the Model Context Protocol over Streamable HTTP, stateless, JSON responses, with
 * the SDK's web-standard transport. The request's JSON-RPC message is read first (the bundle has
 * parsed and validated it), so that before anything runs it is known which method, and which tool,
 * the request carries:
 *
 * 1. the bundle authenticates the key (one strong read) while a tool's prefetch
 *    ({@link prefetchTool}; create_session: the game or stream) is read alongside, and so is the
 *    `Idempotency-Key` claim of a create_session call (`shared/keys/key-pipeline.ts`);
 * 2. transport headers the SDK would refuse, and a key with no `mcp:` scope, are refused (400, 403),
 *    counted and audited like any call of an authenticated key;
 * 3. the request is metered once: by the tool it calls, together with the tool's own write or read
 *    (one parallel stage), or, for any other method and any notification (a message without `id`,
 *    a `tools/call` too: no tool runs), with no effect, once the transport has answered (audited
 *    with the status answered, 202 for a notification; a 429 replaces it).
 *
 * create_session is thus two sequential stages, as over REST; one for a key this container has read
 * valid, whose metering runs ahead of its key's read (`RouteDefinition.ahead`, `runsAheadOfKey`).
 */
import { WebStandardStreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js';
import { SUPPORTED_PROTOCOL_VERSIONS } from '@modelcontextprotocol/sdk/types.js';
import type { APIGatewayProxyStructuredResultV2 } from 'aws-lambda';
import { safeParse } from 'zod/mini';
import { Forbidden, InvalidInput, NotFound } from '../platform/errors.js';
import { isMcpScope, type McpScope, type ApiKeyRecord } from '../keys/index.js';
import type { CallContext } from '../platform/call.js';
import type { McpRequestBody } from './schemas.js';
import type { McpServices } from './services.js';
import { logger, annotate, countToolCall } from '../platform/observability.js';
import { isNotification } from './idempotency.js';
import { RequestMeter } from './metering.js';
import { buildMcpServer } from './server.js';
import type { McpTool } from './tool.js';
import { TOOLS } from './tools/index.js';

/** One HTTP request to the MCP endpoint, as the bundle hands it over. */
export interface McpHttpRequest {
  /** The JSON-RPC message (one per request). */
  readonly message: McpRequestBody;
  /** The API key the bundle authenticated. */
  readonly key: ApiKeyRecord;
  readonly call: CallContext;
  /** Request headers, lower-case names. */
  readonly headers: Readonly<Record<string, string | undefined>>;
  /** The public URL of the endpoint. */
  readonly url: string;
}

/** A `tools/call` request: the tool named (if it is one of ours) and its raw arguments. */
interface ToolCall {
  readonly name: string | undefined;
  readonly tool: McpTool | undefined;
  readonly args: unknown;
}

/**
 * Serve one MCP request of an authenticated key: scopes, the transport's answer, metering. The
 * answer is the transport's own HTTP response.
 * @param prefetched what {@link prefetchTool} read alongside authentication
 */
export async function serveMcp(
  request: McpHttpRequest,
  services: McpServices,
  prefetched: Promise<unknown>,
): Promise<APIGatewayProxyStructuredResultV2> {
  const { key } = request;
  const toolCall = toolCallOf(request.message);
  // A notification gets no JSON-RPC answer and runs no tool, a `tools/call` neither (docs/mcp.md,
  // "Notifications"): metered as the transport answered it (202), like any other method.
  const runsTool = toolCall !== undefined && !isNotification(request.message);
  // Caller-chosen strings reach the log only when they are names the protocol or the server knows: a
  // made-up method or tool name could carry anything (a token, a key), so it is logged as `unknown`.
  annotate(request.call, { mcp_method: knownMethod(request.message.method), mcp_tool: toolCall && (toolCall.tool?.name ?? 'unknown') });
  // By the server's own tool names only: a name the caller made up is `unknown`, never a dimension of its own.
  if (runsTool) countToolCall(toolCall.tool?.name);
  const meter = new RequestMeter(services.keyCalls, key, request.call, auditAction(request.message, toolCall));
  try {
    assertStreamableHttp(request.headers);
  } catch (refusal) {
    await meter.refuse({}, refusal as Error);
  }

  const granted = grantedScopes(key);
  if (granted.size === 0) {
    await meter.refuse({}, new Forbidden('This API key has no MCP scope; an organization admin can grant some (mcp_scopes)'));
  }

  const server = buildMcpServer({ key, call: request.call, services, meter, prefetched }, granted, runsTool ? toolCall.name : undefined);
  const transport = new WebStandardStreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: true });
  await server.connect(transport);
  const response = await transport.handleRequest(webRequest(request), { parsedBody: request.message });
  const result = await lambdaResult(response);
  await server.close();
  // The SDK answers anything that throws inside it as a JSON-RPC internal error with HTTP 200: a
  // message it failed to validate (`initialize` without params: the client's mistake, so no 5xx) as
  // much as a failure of its own. The answer stays the protocol's; the log line makes the second
  // kind visible (a stand-in of the bundle reached, say).
  const internal = internalErrorOf(result);
  if (internal !== undefined) logger.warn('MCP internal error answered', { request_id: request.call.requestId, error_message: internal });

  // Any other method is metered once the transport has answered, so that its audit record says
  // what the client got (the SDK refuses some messages the loose body schema lets through).
  if (!runsTool) await meterAnswer(meter, result);
  // A tool call the SDK refused before any tool ran (invalid arguments, unknown tool) is still one call.
  if (runsTool && !meter.metered) await refuseUnrun(meter, toolCall, granted);
  if (meter.failure !== undefined) throw meter.failure;
  return result;
}

/** The JSON-RPC method as a log field: a protocol-shaped name (`tools/call`), else `unknown`. */
function knownMethod(value: unknown): string | undefined {
  if (value === undefined) return undefined;
  return typeof value === 'string' && /^[a-z]+(\/[a-zA-Z]+)*$/.test(value) && value.length <= 64 ? value : 'unknown';
}

/** The message of a JSON-RPC internal error (-32603) the transport answered, if it answered one. */
export function internalErrorOf(result: APIGatewayProxyStructuredResultV2): string | undefined {
  if (!result.body?.includes('-32603')) return undefined;
  try {
    const { error } = JSON.parse(result.body) as { error?: { code?: unknown; message?: unknown } };
    return error?.code === -32603 ? String(error.message ?? '') : undefined;
  } catch {
    return undefined;
  }
}

/** What the transport itself would refuse, refused by the service (after authentication: counted). */
function assertStreamableHttp(headers: McpHttpRequest['headers']): void {
  const accept = headers.accept ?? '';
  if (!accept.includes('application/json') || !accept.includes('text/event-stream')) {
    throw new InvalidInput('Accept must list application/json and text/event-stream (MCP Streamable HTTP)');
  }
  const version = headers['mcp-protocol-version'];
  if (version !== undefined && !SUPPORTED_PROTOCOL_VERSIONS.includes(version)) {
    throw new InvalidInput(`Unsupported MCP-Protocol-Version ${version} (supported: ${SUPPORTED_PROTOCOL_VERSIONS.join(', ')})`);
  }
}

function toolCallOf(message: McpRequestBody): ToolCall | undefined {
  if (message.method !== 'tools/call') return undefined;
  const name = typeof message.params?.name === 'string' ? message.params.name : undefined;
  return { name, tool: TOOLS.find((t) => t.name === name), args: message.params?.arguments ?? {} };
}

/**
 * The called tool's reads that need only its arguments (create_session: the game or stream), when
 * they are valid (the SDK refuses them otherwise); the bundle starts them alongside authentication.
 */
export function prefetchTool(message: McpRequestBody, services: McpServices): Promise<unknown> {
  const toolCall = isNotification(message) ? undefined : toolCallOf(message);
  const parsed = toolCall?.tool?.prefetch ? safeParse(toolCall.tool.input, toolCall.args) : undefined;
  if (!parsed?.success) return Promise.resolve(undefined);
  return toolCall!.tool!.prefetch!(parsed.data, services);
}

/** The audit action: `mcp:<method>`, and the tool for a tool call (`mcp:tools/call:create_session`). */
function auditAction(message: McpRequestBody, toolCall: ToolCall | undefined): string {
  if (toolCall) return `mcp:tools/call:${toolCall.tool?.name ?? 'unknown'}`;
  return `mcp:${message.method ?? 'response'}`;
}

/** The key's MCP scopes: names of the specification's table only (deny-by-default). */
function grantedScopes(key: ApiKeyRecord): ReadonlySet<McpScope> {
  return new Set((key.mcp_scopes ?? []).filter(isMcpScope));
}

/** Meter a request that runs no tool: counted either way, audited with the status answered (or 429 instead). */
async function meterAnswer(meter: RequestMeter, result: APIGatewayProxyStructuredResultV2): Promise<void> {
  const status = result.statusCode ?? 200;
  if (status < 400) return meter.count(status);
  const refusal = new InvalidInput('Not a valid MCP message');
  await meter.refuse({}, refusal).catch((error: unknown) => {
    if (error !== refusal) throw error;
  });
}

/** Meter a tool call no tool metered: refused by the SDK (invalid arguments, unknown tool), or failed first. */
async function refuseUnrun(meter: RequestMeter, toolCall: ToolCall, granted: ReadonlySet<McpScope>): Promise<void> {
  const refusal =
    meter.failure instanceof Error
      ? meter.failure
      : toolCall.tool && granted.has(toolCall.tool.scope)
        ? new InvalidInput(`Invalid arguments for tool ${toolCall.tool.name}`)
        : new NotFound(`Tool ${toolCall.name ?? ''} not found`);
  // The answer (a tool error) is already written; only a refusal by the rate limit replaces it.
  await meter.refuse({}, refusal).catch((error: unknown) => {
    if (error !== refusal) throw error;
  });
}

/** The web-standard request the transport reads: method, the headers it checks, no body (passed parsed). */
function webRequest(request: McpHttpRequest): Request {
  const headers = new Headers();
  for (const name of ['accept', 'content-type', 'mcp-protocol-version']) {
    const value = request.headers[name];
    if (value !== undefined) headers.set(name, value);
  }
  return new Request(request.url, { method: 'POST', headers });
}

async function lambdaResult(response: Response): Promise<APIGatewayProxyStructuredResultV2> {
  const contentType = response.headers.get('content-type');
  return {
    statusCode: response.status,
    headers: { ...(contentType ? { 'content-type': contentType } : {}), 'cache-control': 'no-store' },
    body: await response.text(),
  };
}
