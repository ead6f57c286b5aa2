/**
 * The one scope -> tool table (shared/keys/mcp-scopes.ts): the MCP server's tools take their
 * scope from it, and the console marks from it the scopes that grant no tool here.
 */
import { describe, expect, test } from '@jest/globals';
import { MCP_SCOPE_TOOLS, MCP_SCOPES, scopeOfTool, TOOL_SCOPES, toolsOfScope } from '../../shared/keys/mcp-scopes.js';
import { DEMO_MCP_KEY } from '../../infra/local/seed.js';
import { TOOL_SCOPES as ALL_TOOL_SCOPES } from '../support/mcp.js';
import { TOOLS } from '../../shared/mcp/tools/index.js';

describe('the MCP scope -> tool table', () => {
  test('names every tool of the server, each under the scope that grants it, and nothing else', () => {
    const fromTools = Object.fromEntries(
      MCP_SCOPES.map((scope) => [
        scope,
        TOOLS.filter((t) => t.scope === scope)
          .map((t) => t.name)
          .sort(),
      ]),
    );
    const fromTable = Object.fromEntries(MCP_SCOPES.map((scope) => [scope, [...toolsOfScope(scope)].sort()]));
    expect(fromTable).toEqual(fromTools);
    expect(Object.keys(MCP_SCOPE_TOOLS).sort()).toEqual([...MCP_SCOPES].sort());
    for (const tool of TOOLS) expect(scopeOfTool(tool.name as never)).toBe(tool.scope);
  });

  test('some scopes of the specification grant no tool here', () => {
    const idle = MCP_SCOPES.filter((scope) => toolsOfScope(scope).length === 0);
    expect(idle).toContain('mcp:templates:read');
    expect(idle).not.toContain('mcp:sessions:write');
  });

  test('the scopes with tools (the demo MCP key of the local run carries them) are exactly those that grant one', () => {
    expect([...TOOL_SCOPES].sort()).toEqual([...ALL_TOOL_SCOPES].sort());
    expect(DEMO_MCP_KEY.mcp_scopes).toEqual(TOOL_SCOPES);
  });
});
