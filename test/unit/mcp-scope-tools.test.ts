/**
 * The one scope -> tool table (shared/keys/mcp-scopes.ts): the MCP server's tools take their
 * scope from it, and the console marks from it the scopes that grant no tool here (issue 25, item 8).
 */
import { describe, expect, test } from '@jest/globals';
import { MCP_SCOPE_TOOLS, MCP_SCOPES, scopeOfTool, toolsOfScope } from '../../shared/keys/mcp-scopes.js';
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
});
