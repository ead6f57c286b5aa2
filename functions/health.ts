import { healthServices } from '../shared/meta/health-services.js';
import { api } from '../shared/platform/http/pipeline.js';
import { health } from '../shared/meta/routes/health.js';

/** GET /api/health[?deep=1] (no credential): liveness; deep also times one database read */
export const handler = api(health, { services: healthServices }, ({ query, services }) =>
  services.health.check(query.deep === '1' || query.deep === 'true'),
);
