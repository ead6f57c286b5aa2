import { healthServices } from '../shared/compose/health.js';
import { api } from '../shared/http/api.js';
import { health } from '../shared/operations/health.js';

/** GET /api/health[?deep=1] (no credential): liveness; deep also times one database read */
export const handler = api(health, { services: healthServices }, ({ query, services }) =>
  services.health.check(query.deep === '1' || query.deep === 'true'),
);
