/** The mcp feature as other features see it (the MCP server): import it from here, never from its files (eslint.config.js). */
export { mcp } from './route.js';
