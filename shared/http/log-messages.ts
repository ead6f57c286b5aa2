/**
 * The messages of the line the HTTP bundle writes once per request (`respond()` in `api.ts`).
 * `infra/monitoring.ts` counts and alarms on these lines (metric filters match the message) and the
 * benchmark reads their durations: one constant each, so that rewording the line cannot silently
 * blind an alarm. A module of its own, so that infra imports the words without the logger.
 */

/** A request answered below 500 (INFO), with its operation, status, request id and duration. */
export const REQUEST_ANSWERED = 'request';
/** A request answered 5xx (ERROR), with the same fields and the error. */
export const REQUEST_FAILED = 'request failed';
