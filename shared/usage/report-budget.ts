import { OrgBudget, type OrgBudgetStore } from '../platform/org-budget.js';
import type { Clock } from '../platform/time.js';

/**
 * Reports an organization may request a minute, REST `usage` and MCP `get_session_report` together
 * (docs/decisions.md#usage-reports).
 */
export const REPORTS_PER_MINUTE = 30;

/**
 * The per-organization report budget: an {@link OrgBudget} of {@link REPORTS_PER_MINUTE} a minute
 * (one counter item per org and minute, refusals answered from memory once the minute is spent).
 * A report is counted once its caller is known to be allowed it (a member with the usage
 * permission, a key with the report scope): an outsider cannot spend an org's budget.
 */
export class ReportBudget extends OrgBudget {
  constructor(deps: { readonly store: OrgBudgetStore; readonly clock: Clock }) {
    super({
      ...deps,
      policy: { name: 'reports', title: 'Report limit exceeded', what: 'usage reports', perMinute: REPORTS_PER_MINUTE },
    });
  }
}
