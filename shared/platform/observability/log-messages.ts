/**
 * The messages of the line the HTTP bundle writes once per request (`request-log.ts`). On-call's
 * Logs Insights queries (docs/runbook.md) match them and the benchmark reads their durations: one
 * constant each, so that rewording the line is a visible change. A module of its own, so that
 * tools import the words without the logger.
 */

/** A request answered below 500 (INFO; WARN for 401, 403, 429), with its operation, status, request id and duration. */
export const REQUEST_ANSWERED = 'request';
/** A request answered 5xx (ERROR), with the same fields and the error. */
export const REQUEST_FAILED = 'request failed';
