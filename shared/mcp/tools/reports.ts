/** The session report tool (mcp:reports:read). */
import { checkRange, type SessionCounts } from '../../usage/index.js';
import { isAllowed, outOfScope, type Target } from '../../sessions/index.js';
import { SessionReportArgs, SessionReportResult } from '../schemas.js';
import { scopeOfTool } from '../../keys/index.js';
import { defineTool, reading } from '../tool.js';

const counted = (counts: SessionCounts) =>
  `${counts.created} created: ${counts.consumed} consumed, ${counts.expired} expired, ${counts.revoked} revoked, ${counts.active} still active`;

/** get_session_report: sessions per creation day, by status now. */
export const sessionReport = defineTool({
  name: 'get_session_report',
  title: 'Session report',
  description:
    'Sessions of your organization created per UTC day in a range of at most 31 days, with how many of them ' +
    'have been consumed, have expired, were revoked or are still active, per day, per game or stream and per ' +
    'API key. Filter with game_id, stream_id or key_id. At most 30 reports a minute per organization, ' +
    'together with the REST usage report; beyond, the request is answered 429 with Retry-After.',
  scope: scopeOfTool('get_session_report'),
  input: SessionReportArgs,
  output: SessionReportResult,
  annotations: { readOnlyHint: true, openWorldHint: false },
  // Through a key, the report covers only what its allow-lists allow (docs/decisions.md#scopes): a
  // filter on another game or stream is the "no access" tool error, and without one the report
  // leaves the others out.
  async run(args, { key, services, meter }) {
    const subject = { game_id: args.game_id ?? null, stream_id: args.stream_id ?? null };
    const filters: Target[] = [
      ...(subject.game_id !== null ? [{ kind: 'game' as const, id: subject.game_id }] : []),
      ...(subject.stream_id !== null ? [{ kind: 'stream' as const, id: subject.stream_id }] : []),
    ];
    const refused = filters.find((target) => !isAllowed(key, target));
    if (refused) await meter.refuse(subject, outOfScope(refused));
    // The org's report budget is counted beside the key's count (the read's first stage), the
    // report read once it is granted. Spent: 429 with Retry-After, as the key's own rate limit
    // (it ends the HTTP request: shared/mcp/server.ts), audited as the call's outcome.
    const report = await meter.run(
      subject,
      reading(async () => {
        // A range no report may have is refused before the budget is spent.
        checkRange(args);
        await services.reportBudget.take(key.org_id);
        return services.reports.report(key.org_id, args, key);
      }),
    );
    const days = report.days.filter((d) => d.created > 0).map((d) => `${d.date}: ${counted(d)}`);
    return {
      data: report,
      summary: [`${report.from} to ${report.to}: ${counted(report.totals)}`, ...days].join('\n'),
    };
  },
});
