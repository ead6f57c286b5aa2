/** THE tool list of the MCP server, in the order `tools/list` shows it. */
import type { McpTool } from '../tool.js';
import { catalogTools } from './catalog.js';
import { sessionReport } from './reports.js';
import { createSession, revokeSession } from './sessions.js';
import { webhookTools } from './webhooks.js';

export const TOOLS: readonly McpTool[] = [
  createSession,
  revokeSession,
  ...catalogTools('game'),
  ...catalogTools('stream'),
  sessionReport,
  ...webhookTools,
] as readonly McpTool[];
