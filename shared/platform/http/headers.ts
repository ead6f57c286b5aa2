import type { APIGatewayProxyStructuredResultV2 } from 'aws-lambda';
import type { RateLimitState } from '../call.js';

/**
 * Headers of every answer the service builds, whatever its type: `nosniff`, so that a browser never
 * runs an answer (an error quoting the caller's input, a document) as another type than it says.
 * `respond.ts` adds them to every function's answer, the local front to its own; the edge adds them
 * too (`infra/edge.ts`), and the WAF's 429 names them itself (`infra/waf.ts`).
 */
export const ANSWER_HEADERS: Readonly<Record<string, string>> = { 'x-content-type-options': 'nosniff' };

const JSON_HEADERS = { 'content-type': 'application/json; charset=utf-8', 'cache-control': 'no-store', ...ANSWER_HEADERS };

/** What an error answer says: the message, its stable code, and the field at fault when one is. */
interface ErrorPayload {
  readonly error: string;
  readonly code: string;
  readonly param?: string | undefined;
}

/**
 * A JSON response: `{success: true, data}` for 2xx, `{success: false, error, code, param?}`
 * otherwise (`param` only when a field is at fault).
 */
export function jsonResponse(
  statusCode: number,
  payload: { data: unknown } | ErrorPayload,
  headers: Record<string, string> = {},
): APIGatewayProxyStructuredResultV2 {
  const body =
    'data' in payload
      ? { success: true, data: payload.data }
      : { success: false, error: payload.error, code: payload.code, ...(payload.param === undefined ? {} : { param: payload.param }) };
  return { statusCode, headers: { ...JSON_HEADERS, ...headers }, body: JSON.stringify(body) };
}

/**
 * Rate-limit headers per draft-ietf-httpapi-ratelimit-headers: `RateLimit-Policy` names both
 * windows; `RateLimit` reports the window closest to exhaustion.
 */
export function rateLimitHeaders(state: RateLimitState | undefined): Record<string, string> {
  if (!state || state.windows.length === 0) return {};
  const policy = state.windows.map((w) => `"${w.name}";q=${w.limit};w=${w.windowSeconds}`).join(', ');
  // On a tie the window that resets later binds longer (both exhausted: the day).
  const tightest = state.windows.reduce((a, b) =>
    b.remaining < a.remaining || (b.remaining === a.remaining && b.resetSeconds > a.resetSeconds) ? b : a,
  );
  return { 'ratelimit-policy': policy, ratelimit: `"${tightest.name}";r=${tightest.remaining};t=${tightest.resetSeconds}` };
}
