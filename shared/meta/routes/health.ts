import { HealthQuery, HealthReport } from '../health-schemas.js';
import { defineOperation } from '../../platform/route.js';

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
