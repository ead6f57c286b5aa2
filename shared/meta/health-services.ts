/** The health function's part: the liveness report and the deep check's one catalog read. */
import { Health } from './health.js';
import { required } from '../platform/env.js';
import { API_VERSION } from '../platform/route.js';
import { DynamoHealthProbe } from './health-probe.js';
import { tables } from '../tables.js';
import { coreServices, part } from '../platform/services.js';

/** What the health function needs. */
export interface HealthServices {
  readonly health: Health;
}

/** The health part of this container's services (a liveness check makes no DynamoDB call). */
export const healthServices = /* @__PURE__ */ part((): HealthServices => {
  const { client, env, clock } = coreServices();
  const probe = new DynamoHealthProbe({ client, tableName: required(env, tables.catalog.envVar) });
  return { health: new Health({ probe, clock, interfaceVersion: API_VERSION, buildVersion: env.BUILD_VERSION }) };
});
