import type { AdminIdentity } from '../platform/bearer.js';
import type { AdminAccess } from '../catalog/index.js';
import type { ReportBudget } from './report-budget.js';
import { checkRange, type SessionReport, type SessionReports } from './reports.js';

/** What a member asks the usage of: an organization, a range of days, optionally one key. */
export interface UsageRequest {
  readonly org_id: number;
  readonly from: string;
  readonly to: string;
  readonly key_id?: number | undefined;
}

/**
 * The usage report for org members (owners, admins, analysts: docs/decisions.md#organization-roles):
 * the MCP session report's domain function. Unlike the other admin reads, the membership is checked
 * before the report is read, not beside it, and then the org's report budget (`report-budget.ts`):
 * nobody outside the org may make the service read its reports, nor spend its budget. Allowed at
 * any tier (an org keeps seeing its history).
 */
export class Usage {
  constructor(private readonly deps: { readonly access: AdminAccess; readonly budget: ReportBudget; readonly reports: SessionReports }) {}

  /** @throws Forbidden, InvalidInput (a reversed or too long range), ReportsLimited (429) */
  async report(admin: AdminIdentity, request: UsageRequest): Promise<SessionReport> {
    await this.deps.access.authorize(admin, request.org_id, async () => undefined, { permission: 'usage', anyTier: true });
    checkRange(request);
    await this.deps.budget.take(request.org_id);
    return this.deps.reports.report(request.org_id, { from: request.from, to: request.to, key_id: request.key_id ?? null });
  }
}
