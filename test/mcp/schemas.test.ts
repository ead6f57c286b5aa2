/**
 * MCP tool schemas for agents, as the real MCP client receives them from `tools/list`:
 * every tool parameter described; no composition (`oneOf`, `anyOf`, `allOf`, `not`, `if`) at the
 * root of any input schema, which tool-calling APIs (Anthropic's, Bedrock's, Vertex's, OpenAI's)
 * refuse, so "exactly one of game_id or stream_id" is said in words and enforced by the server; and
 * none of the constructs strict checkers such as the MCP Inspector warn about (a `type` list such as
 * `["string", "null"]`, an empty `additionalProperties`).
 * The client validates every structured answer against its output schema (Ajv), so calling the tools
 * also proves the output schemas compile and hold.
 */
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { afterAll, beforeAll, describe, expect, test } from '@jest/globals';
import { createTestKey, UNLIMITED } from '../support/keys.js';
import { startStack, type Stack } from '../support/local-stack.js';
import { ALL_TOOLS, callTool, connectMcp, textOf, TOOL_SCOPES } from '../support/mcp.js';
import { stopAll } from '../support/teardown.js';

let stack: Stack;
let client: Client;
let tools: Awaited<ReturnType<Client['listTools']>>['tools'];

beforeAll(async () => {
  stack = await startStack();
  const key = await createTestKey(stack, { ...UNLIMITED, mcp_scopes: TOOL_SCOPES });
  client = await connectMcp(stack, key.raw);
  tools = (await client.listTools()).tools;
});
afterAll(() =>
  stopAll(
    () => client?.close(),
    () => stack?.stop(),
  ),
);

/** Keywords a tool-calling API refuses at the root of a tool's input schema (JSON Schema composition and conditionals). */
const ROOT_COMPOSITION = ['oneOf', 'anyOf', 'allOf', 'not', 'if', 'then', 'else'];

/** Every place in a schema where a strict checker would warn: `type` lists and empty `additionalProperties`. */
function strictWarnings(schema: unknown, at = ''): string[] {
  if (!schema || typeof schema !== 'object') return [];
  const node = schema as Record<string, unknown>;
  const here = [
    ...(Array.isArray(node.type) ? [`${at}/type is a list`] : []),
    ...(node.additionalProperties && typeof node.additionalProperties === 'object' && Object.keys(node.additionalProperties).length === 0
      ? [`${at}/additionalProperties is {}`]
      : []),
  ];
  return [...here, ...Object.entries(node).flatMap(([key, value]) => strictWarnings(value, `${at}/${key}`))];
}

describe('tools/list', () => {
  test('lists every tool', () => {
    expect(tools.map((t) => t.name)).toEqual(ALL_TOOLS);
  });

  test('every parameter of every tool is described', () => {
    const undescribed = tools.flatMap((tool) =>
      Object.entries((tool.inputSchema.properties ?? {}) as Record<string, { description?: string }>)
        .filter(([, property]) => !property.description || property.description.length < 10)
        .map(([name]) => `${tool.name}.${name}`),
    );
    expect(undescribed).toEqual([]);
  });

  test('no type lists, no empty additionalProperties, in any input or output schema', () => {
    const warnings = tools.flatMap((tool) => [
      ...strictWarnings(tool.inputSchema, `${tool.name}/input`),
      ...strictWarnings(tool.outputSchema, `${tool.name}/output`),
    ]);
    expect(warnings).toEqual([]);
  });

  test('no input schema of any tool has oneOf, anyOf, allOf, not or if at its root (tool-calling APIs refuse them)', () => {
    const composed = tools.flatMap((tool) =>
      ROOT_COMPOSITION.filter((keyword) => keyword in tool.inputSchema).map((keyword) => `${tool.name}: ${keyword}`),
    );
    expect(composed).toEqual([]);
    for (const tool of tools) expect([tool.name, tool.inputSchema.type]).toEqual([tool.name, 'object']);
  });

  test('create_session says "exactly one of game_id or stream_id" in words: the tool and both parameters', () => {
    const create = tools.find((t) => t.name === 'create_session')!;
    const properties = create.inputSchema.properties as Record<string, { description: string }>;
    for (const text of [create.description, properties.game_id!.description, properties.stream_id!.description]) {
      expect(text).toMatch(/exactly one of game_id or stream_id/);
    }
    expect(create.inputSchema.additionalProperties).toBe(false);
  });
});

describe('the schemas hold for real calls (the client checks every answer against its output schema)', () => {
  test('create_session with game_id (stream_id null counts as absent) answers, and validates', async () => {
    const result = await callTool(client, 'create_session', { game_id: 101, stream_id: null, metadata: { level: 3 } });
    expect(result.isError).toBeFalsy();
    expect(result.structuredContent).toMatchObject({ game_id: 101, stream_id: null, external_ref: null });
    const revoked = await callTool(client, 'revoke_session', { token: (result.structuredContent as { token: string }).token });
    expect(revoked.structuredContent).toMatchObject({ status: 'revoked', metadata: { level: 3 } });
  });

  test.each([
    [{ game_id: 101, stream_id: 201 }, /exactly one of game_id or stream_id/],
    [{}, /exactly one of game_id or stream_id/],
    [{ gameId: 101 }, /unknown field gameId/],
    [{ game_id: null, stream_id: null }, /exactly one of game_id or stream_id/],
  ])('create_session refuses what its description excludes, with a tool error: %j', async (args, message) => {
    const result = await callTool(client, 'create_session', args);
    expect(result.isError).toBe(true);
    expect(textOf(result)).toMatch(message);
  });
});
