import type { APIGatewayProxyStructuredResultV2 } from 'aws-lambda';
import { DomainError, errorStatus, Overloaded, RateLimited } from '../domain/errors.js';
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

/**
 * The one place an error becomes a response: a domain error's status (from `errorStatus`) and its
 * message; anything else a generic 500 whose body says nothing about the cause.
 */
export function errorResponse(error: unknown, headers: Record<string, string> = {}): APIGatewayProxyStructuredResultV2 {
  if (error instanceof DomainError) {
    const extra: Record<string, string> = {};
    if (error instanceof RateLimited) extra['retry-after'] = String(error.retryAfterSeconds);
    if (error instanceof Overloaded) extra['retry-after'] = '1';
    return jsonResponse(errorStatus[error.name], { error: error.message }, { ...headers, ...extra });
  }
  const middy = middyStatus(error);
  if (middy !== undefined && middy < 500) {
    const status = middy === 415 || middy === 422 ? 400 : middy;
    return jsonResponse(status, { error: MIDDY_MESSAGES[middy] ?? 'Bad request' }, headers);
  }
  return jsonResponse(500, { error: 'Internal server error' }, headers);
}
