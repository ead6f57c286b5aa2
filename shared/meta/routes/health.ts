import { HealthQuery, HealthReport } from '../health-schemas.js';
import { defineOperation } from '../../platform/route.js';
import { healthServices } from '../health-services.js';
import { api } from '../../platform/http/pipeline.js';

/**
 * health: liveness for load balancers, uptime checks and deploy smoke tests (no credential). No
 * DynamoDB call unless `?deep=1`, which reads one catalog item (a fixed key) and reports its latency;
 * a failed read is 503.
 */
export const health = defineOperation({
  operation: 'health',
  function: 'health',
  data: { catalog: ['GetItem'] },
  parts: ['health'],
  method: 'GET',
  path: '/api/health',
  auth: 'none',
  capacity: 'meta',
  summary: 'Liveness (interface and build version); with deep=1 one bounded database read and its latency',
  query: HealthQuery,
  response: HealthReport,
});

/** GET /api/health[?deep=1] (no credential): liveness; deep also times one database read */
export const handler = /* @__PURE__ */ api(health, { services: healthServices }, ({ query, services }) =>
  services.health.check(query.deep === '1' || query.deep === 'true'),
);
