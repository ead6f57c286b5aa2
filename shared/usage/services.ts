/** The usage part for org members (bearer): the session report with refused calls. */
import { part, storeOptions } from '../platform/services.js';
import { DynamoTokenReportStore } from './token-report-store.js';
import { DynamoUsageRollupReader } from './usage-rollup-reads.js';

export const tokenReportStore = /* @__PURE__ */ part(() => new DynamoTokenReportStore(storeOptions('tokens')));
export const usageRollupReader = /* @__PURE__ */ part(() => new DynamoUsageRollupReader(storeOptions('audit')));
