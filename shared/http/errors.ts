import type { APIGatewayProxyStructuredResultV2 } from 'aws-lambda';
import { Conflict, DomainError, errorStatus, Overloaded, RateLimited } from '../domain/errors.js';
import { jsonResponse } from './envelope.js';

/** Middy's own HTTP errors (JSON parser): 415 and 422 become the spec's 400. */
function middyStatus(error: unknown): number | undefined {
  const e = error as { statusCode?: number; expose?: boolean } | null;
  return typeof e?.statusCode === 'number' && e.expose ? e.statusCode : undefined;
}

/** Messages for middy's errors, in the service's words. */
const MIDDY_MESSAGES: Record<number, string> = {
  415: 'Content-Type must be application/json',
  422: 'Request body is not valid JSON',
};

/** What an error becomes: its status, the message the client may see, and extra headers. */
export interface ErrorOutcome {
  readonly status: number;
  readonly message: string;
  readonly headers: Record<string, string>;
}

/**
 * The one place an error is classified: a domain error's status (from `errorStatus`) and its
 * message; middy's own client errors in the service's words; anything else a generic 500 whose
 * message says nothing about the cause. The JSON envelope and the HTML pages both render this.
 */
export function errorOutcome(error: unknown): ErrorOutcome {
  if (error instanceof DomainError) {
    const headers: Record<string, string> = {};
    if (error instanceof RateLimited) headers['retry-after'] = String(error.retryAfterSeconds);
    if (error instanceof Overloaded) headers['retry-after'] = '1';
    if (error instanceof Conflict && error.retryAfterSeconds !== undefined) headers['retry-after'] = String(error.retryAfterSeconds);
    return { status: errorStatus[error.name], message: error.message, headers };
  }
  const middy = middyStatus(error);
  if (middy !== undefined && middy < 500) {
    const status = middy === 415 || middy === 422 ? 400 : middy;
    return { status, message: MIDDY_MESSAGES[middy] ?? 'Bad request', headers: {} };
  }
  return { status: 500, message: 'Internal server error', headers: {} };
}

/** The one place an error becomes a JSON response: its outcome in the `{success:false, error}` envelope. */
export function errorResponse(error: unknown, headers: Record<string, string> = {}): APIGatewayProxyStructuredResultV2 {
  const outcome = errorOutcome(error);
  return jsonResponse(outcome.status, { error: outcome.message }, { ...headers, ...outcome.headers });
}
