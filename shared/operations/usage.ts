import { SessionReport, UsageQuery } from '../schemas/reports.js';
import { API_PATH, defineOperation } from './operation.js';

/**
 * usage: owners, admins and analysts read the organization's session report (bearer): sessions per
 * day, game or stream and key, and the key calls refused per day (429, 403). The MCP
 * get_session_report tool's domain function. The membership first, then the day's audit records
 * (tokens and refusals, one query per shard and day), then the tokens and the refusal tallies.
 */
export const usage = defineOperation({
  operation: 'usage',
  function: 'usage',
  data: { catalog: ['GetItem'], audit: ['Query'], tokens: ['BatchGetItem'], counters: ['BatchGetItem'] },
  parts: ['usage'],
  method: 'GET',
  path: API_PATH,
  action: 'usage',
  auth: 'bearer',
  capacity: 'admin',
  summary: 'Read the organization’s usage: sessions per day, game or stream and key, and refused calls (429, 403)',
  query: UsageQuery,
  response: SessionReport,
});
