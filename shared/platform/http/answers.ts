/**
 * THE rendering of an operation's outcome as its HTTP answer, for every JSON function: what a client
 * gets, and what a claimed `Idempotency-Key` stores to give again (status, body, rate-limit headers).
 * A thrown error that ends a request otherwise is rendered by the same `errorResponse`.
 */
import type { APIGatewayProxyStructuredResultV2 } from 'aws-lambda';
import type { CallContext } from '../call.js';
import type { RouteDefinition } from '../route.js';
import { jsonResponse, rateLimitHeaders } from './headers.js';
import { errorResponse } from './error-answers.js';

type Result = APIGatewayProxyStructuredResultV2;

/** What an operation ended with: its data, or the error it threw. */
export type Outcome = { readonly data: unknown } | { readonly error: unknown };

/** Settle an operation's promise into its {@link Outcome} (an error is a value here, to be rendered or rethrown). */
export function outcomeOf(result: Promise<unknown>): Promise<Outcome> {
  return result.then(
    (data) => ({ data }),
    (error: unknown) => ({ error }),
  );
}

/**
 * The HTTP answer of an outcome: an error in its envelope (`errorResponse`); data in the success
 * envelope, as a document of its own, or as the transport's own result, as the operation declares
 * (`reply`); with the rate-limit headers of the call.
 */
export function responseOf(reply: RouteDefinition['reply'], call: CallContext, outcome: Outcome): Result {
  const response =
    'error' in outcome
      ? errorResponse(outcome.error)
      : reply === 'transport'
        ? (outcome.data as Result)
        : reply === 'document'
          ? documentResponse(outcome.data)
          : jsonResponse(200, { data: outcome.data });
  return { ...response, headers: { ...(response.headers as Record<string, string>), ...rateLimitHeaders(call.rateLimit) } };
}

/** A JSON document served as it is (no envelope); it changes only with a deployment. */
function documentResponse(document: unknown): Result {
  return {
    statusCode: 200,
    headers: { 'content-type': 'application/json; charset=utf-8', 'cache-control': 'public, max-age=300' },
    body: JSON.stringify(document),
  };
}
