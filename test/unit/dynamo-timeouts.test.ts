/**
 * DynamoDB calls that hang fail inside the Lambda timeout, retries included: the worst case of a
 * request's DynamoDB calls, computed from the client's timeouts and retry policy, leaves the
 * function time to answer (a 503 or 500 of its own rather than Lambda's timeout).
 */
import { describe, expect, test } from '@jest/globals';
import { FUNCTION_TIMEOUT } from '../../infra/functions.js';
import { DYNAMO_TIMEOUTS, RETRY_POLICY, worstCaseCallMs } from '../../shared/store/dynamo-client.js';

/**
 * The most DynamoDB calls a request makes one after another on its warm path (round-trip-stages
 * test: rotate-key's 4 stages).
 */
const MOST_SEQUENTIAL_CALLS = 4;
/** What the function needs besides DynamoDB to answer at all: the rest of the handler, the answer. */
const ANSWER_MARGIN_MS = 1_000;

describe('DynamoDB timeouts and retries fit the function timeout', () => {
  test('the worst case of one call is its attempts hanging to both timeouts plus the longest backoffs', () => {
    const attempt = DYNAMO_TIMEOUTS.connectionTimeoutMs + DYNAMO_TIMEOUTS.requestTimeoutMs;
    expect(worstCaseCallMs()).toBeGreaterThanOrEqual(RETRY_POLICY.maxAttempts * attempt);
    expect(worstCaseCallMs()).toBeLessThanOrEqual(
      RETRY_POLICY.maxAttempts * attempt + (RETRY_POLICY.maxAttempts - 1) * RETRY_POLICY.maxDelayMs,
    );
  });

  test(`${MOST_SEQUENTIAL_CALLS} sequential calls, each at its worst, still leave the function time to answer`, () => {
    expect(MOST_SEQUENTIAL_CALLS * worstCaseCallMs() + ANSWER_MARGIN_MS).toBeLessThanOrEqual(FUNCTION_TIMEOUT.toMilliseconds());
  });
});
