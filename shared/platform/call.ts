/** One call as the pipeline hands it to the domain: who, which request, from where. */

/** Who made a call, for audit and logs. */
export interface CallContext {
  /**
   * The request's id: the caller's `x-request-id` when valid, else the gateway's. One id everywhere:
   * the answer's `request_id` and `x-request-id`, the log line and the audit record
   * (docs/decisions.md#audit).
   */
  readonly requestId: string;
  /**
   * The id API Gateway (or the local front) gave the request: unique, never the caller's choice.
   * What must tell one request from every other uses it ({@link uniqueRequestId}). Absent: `requestId`.
   */
  readonly gatewayRequestId?: string;
  readonly sourceIp: string;
  readonly userAgent: string;
  /** Filled by the domain for key-authenticated calls; the HTTP bundle turns it into headers. */
  rateLimit?: RateLimitState;
}

/**
 * The id that tells a request from every other: the gateway's, never the caller's `x-request-id`
 * (which two requests may share): an audit record's item, a revocation's mark of its own request.
 */
export function uniqueRequestId(call: Pick<CallContext, 'requestId' | 'gatewayRequestId'>): string {
  return call.gatewayRequestId ?? call.requestId;
}

/** One rate-limit window as the client should see it. */
export interface WindowState {
  readonly name: 'minute' | 'day';
  readonly limit: number;
  readonly windowSeconds: number;
  readonly remaining: number;
  readonly resetSeconds: number;
}

/** Both windows of a key after a call. */
export interface RateLimitState {
  readonly windows: readonly WindowState[];
}
