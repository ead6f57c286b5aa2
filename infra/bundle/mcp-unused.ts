/**
 * Stands in for four packages the MCP SDK imports for paths this server never takes (esbuild
 * aliases set in `infra/functions.ts`): `ajv` and `ajv-formats` (the SDK's default JSON Schema
 * validator, used only for elicitation; the server passes its own, see `shared/mcp/server.ts`),
 * and `zod/v3` and `zod-to-json-schema` (support for zod 3 schemas; every schema here is zod 4).
 * Together about 200 KB of the MCP bundle. Reaching any of them fails loudly.
 */
function unused(): never {
  throw new Error('not bundled: the MCP server never validates JSON Schemas or uses zod 3 (infra/bundle/mcp-unused.ts)');
}

/** `ajv`'s class and `ajv-formats`' function. */
export default unused;
/** `zod/v3`'s object builder. */
export const object = unused;
/** `zod-to-json-schema`'s converter. */
export const zodToJsonSchema = unused;
