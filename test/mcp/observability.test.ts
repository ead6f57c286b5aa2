/**
 * What on-call reads of MCP traffic: each JSON-RPC request's line names its method and, for a tool
 * call, its tool, and every tool call counts `McpToolCalls` under its tool (embedded metric format),
 * a name the server does not have counted as `unknown` (no caller-made dimension).
 */
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { afterAll, beforeAll, describe, expect, test } from '@jest/globals';
import { randomUUID } from 'node:crypto';
import { METRIC, METRIC_NAMESPACE } from '../../shared/platform/observability.js';
import { createTestKey } from '../support/keys.js';
import { capturedLogs, startStack, type Stack } from '../support/local-stack.js';
import { callTool, connectMcp, postMcp, TOOL_SCOPES } from '../support/mcp.js';
import { stopAll } from '../support/teardown.js';

let stack: Stack;
let client: Client | undefined;
type Line = Record<string, any>;
let lines: Line[];

beforeAll(async () => {
  stack = await startStack();
  const key = await createTestKey(stack, { rate_limit_per_minute: 1000, mcp_scopes: TOOL_SCOPES });
  const from = capturedLogs.length;
  client = await connectMcp(stack, key.raw);
  await callTool(client, 'create_session', { game_id: 101 });
  // A tool refused inside its answer (a token nobody minted): a tool error with HTTP 200.
  expect((await callTool(client, 'revoke_session', { token: randomUUID() })).isError).toBe(true);
  const unknown = await postMcp(
    stack,
    { jsonrpc: '2.0', id: 7, method: 'tools/call', params: { name: 'no_such_tool', arguments: {} } },
    { 'x-api-key': key.raw },
  );
  expect(unknown.status).toBeLessThan(500);
  lines = capturedLogs
    .slice(from)
    .join('')
    .split('\n')
    .filter((l) => l.startsWith('{'))
    .map((l) => JSON.parse(l) as Line);
});
afterAll(() =>
  stopAll(
    () => client?.close(),
    () => stack?.stop(),
  ),
);

const requestLines = () => lines.filter((l) => l.message === 'request' && l.operation === 'mcp');
/** The EMF lines declaring `name` in any of their directives. */
const declaring = (name: string) =>
  lines.filter((l) =>
    (l._aws?.CloudWatchMetrics as { Metrics: { Name: string }[] }[] | undefined)?.some((d) => d.Metrics.some((m) => m.Name === name)),
  );

describe('MCP logging and metrics', () => {
  test('a tool refused inside its answer (HTTP 200) counts as a refusal under its reason, like a REST refusal', () => {
    const refused = requestLines().find((l) => l.mcp_tool === 'revoke_session')!;
    expect(refused).toMatchObject({ status: 200, tool_error_name: 'NotFound', reason: 'NotFound', [METRIC.refusals]: 1 });
    // The tools that succeeded count none.
    for (const line of requestLines().filter((l) => l !== refused)) expect(line[METRIC.refusals]).toBeUndefined();
  });

  test('each request line names its JSON-RPC method, and a tool call its tool', () => {
    expect(requestLines().map((l) => [l.mcp_method, l.mcp_tool])).toEqual([
      ['initialize', undefined],
      ['notifications/initialized', undefined],
      ['tools/call', 'create_session'],
      ['tools/call', 'revoke_session'],
      ['tools/call', 'unknown'],
    ]);
    // The tool's token event rides on its request line like a REST operation's.
    expect(requestLines()[2]).toMatchObject({ status: 200, [METRIC.tokensMinted]: 1 });
  });

  test('every tool call counts McpToolCalls under its tool, and only under the tool (a low-cardinality dimension)', () => {
    const calls = declaring(METRIC.mcpToolCalls);
    expect(calls.map((l) => [l.tool, l[METRIC.mcpToolCalls]])).toEqual([
      ['create_session', 1],
      ['revoke_session', 1],
      ['unknown', 1],
    ]);
    for (const line of calls) {
      const [directive] = line._aws.CloudWatchMetrics as { Namespace: string; Dimensions: string[][] }[];
      expect(directive!.Namespace).toBe(METRIC_NAMESPACE);
      expect(directive!.Dimensions).toEqual([['service', 'tool']]);
    }
  });
});
