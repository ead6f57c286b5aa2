/**
 * Every part of the services together, for what runs the whole service in one process: the local
 * runner, its seed and the tests. A Lambda function never imports this: it names the part it needs
 * (`shared/compose/`), so its bundle carries only that part's code.
 */
import { adminServices, type AdminServices } from '../../shared/keys/services.js';
import { part } from '../../shared/platform/services.js';
import { mcpServices, type McpServices } from '../../shared/mcp/services.js';
import { playServices, type PlayServices } from '../../shared/play/services.js';
import { auditStore, catalogStore, counterStore, keyStore, tokenReportStore, tokenStore } from '../../shared/platform/stores.js';

export { overrideServices, type ServiceOverrides } from '../../shared/platform/services.js';

/** Everything the functions use, and the store adapters (seeding, tests). */
export type Services = McpServices &
  AdminServices &
  PlayServices & {
    readonly stores: {
      readonly tokens: ReturnType<typeof tokenStore>;
      readonly keys: ReturnType<typeof keyStore>;
      readonly catalog: ReturnType<typeof catalogStore>;
      readonly counters: ReturnType<typeof counterStore>;
      readonly audit: ReturnType<typeof auditStore>;
      readonly tokenReports: ReturnType<typeof tokenReportStore>;
    };
  };

/** All the services of this process, built on first use (and again after `overrideServices`). */
export const services = part((): Services => ({
  ...mcpServices(),
  ...adminServices(),
  ...playServices(),
  stores: {
    tokens: tokenStore(),
    keys: keyStore(),
    catalog: catalogStore(),
    counters: counterStore(),
    audit: auditStore(),
    tokenReports: tokenReportStore(),
  },
}));
