import { SessionReport, UsageQuery } from '../report-schemas.js';
import { API_PATH, defineOperation } from '../../platform/route.js';
import { usageServices } from '../admin-services.js';
import { api } from '../../platform/http/pipeline.js';

/**
 * usage: owners, admins and analysts read the organization's session report (bearer): sessions per
 * day, game or stream and key, and the key calls refused per day (429, 403). The MCP
 * get_session_report tool's domain function. The membership first, then the org's report budget
 * (30 a minute with the MCP tool's), then the tokens' report index and the usage rollup together
 * (one query per partition of each, whatever the range: docs/architecture.md, "Usage").
 */
export const usage = defineOperation({
  operation: 'usage',
  function: 'usage',
  data: { catalog: ['GetItem'], audit: ['Query'], tokens: ['Query'], counters: ['UpdateItem'] },
  parts: ['usage'],
  method: 'GET',
  path: API_PATH,
  action: 'usage',
  auth: 'bearer',
  capacity: 'admin',
  summary: 'Read the organization’s usage: sessions per day, game or stream and key, and refused calls (429, 403)',
  errors: [429],
  query: UsageQuery,
  response: SessionReport,
});

/** GET /api/org-api-keys?action=usage&org_id=<id>&from=<day>&to=<day>[&key_id=<id>] (bearer; owner, admin or analyst) */
export const handler = /* @__PURE__ */ api(usage, { services: usageServices }, ({ query, admin, services }) =>
  services.usage.report(admin, query),
);
