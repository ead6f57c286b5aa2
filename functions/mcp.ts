export { handler } from '../shared/mcp/route.js';
