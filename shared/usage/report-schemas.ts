/**
 * The session report: the MCP get_session_report tool's answer and the REST usage operation's (one
 * domain function, one shape), and the usage operation's query.
 */
import * as z from 'zod/mini';
import { Id, QueryId, withMeta } from '../platform/schemas.js';

/** A UTC day. */
export const Day = withMeta(z.iso.date(), { description: 'A UTC day, yyyy-mm-dd.', example: '2026-05-01' });

const Counts = {
  created: withMeta(z.int(), { description: 'Sessions created that day.' }),
  active: withMeta(z.int(), { description: 'Of those, still usable now.' }),
  consumed: z.int(),
  expired: z.int(),
  revoked: z.int(),
  rate_limited: withMeta(z.int(), { description: 'Key calls refused that day by a rate limit (429).' }),
  forbidden: withMeta(z.int(), { description: 'Key calls refused that day as out of the key’s scope (403).' }),
};

/** The report (inline: an MCP tool's output schema may not be a reference). */
export const SessionReportFields = z.object({
  from: Day,
  to: Day,
  complete_from: withMeta(Day, {
    description: 'Days from this one on are complete; earlier days may miss sessions already cleaned up (7 days after expiry).',
  }),
  truncated: withMeta(z.boolean(), {
    description:
      'True when the counts are lower bounds: the range held too many sessions and only the first 20,000 were counted, a day held too many audit records (refused calls) to read them all, or the database was too slow to read everything within the request’s time.',
  }),
  totals: z.object(Counts),
  days: z.array(z.object({ date: Day, ...Counts })),
  by_target: z.array(z.object({ date: Day, game_id: z.nullable(Id), stream_id: z.nullable(Id), ...Counts })),
  by_key: z.array(z.object({ date: Day, key_id: Id, ...Counts })),
});

/** usage: the report as a component of the OpenAPI document. */
export const SessionReport = withMeta(SessionReportFields, { id: 'SessionReport' });

/** usage: an organization, a range of days (at most 31), optionally one key. */
export const UsageQuery = z.object({
  org_id: QueryId,
  from: withMeta(Day, { description: 'First day of the range (UTC).' }),
  to: withMeta(Day, { description: 'Last day, inclusive; at most 31 days after from.' }),
  key_id: withMeta(z.optional(QueryId), { description: 'Only this API key’s sessions and refused calls.' }),
});
