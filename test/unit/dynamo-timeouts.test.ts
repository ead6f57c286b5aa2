/**
 * DynamoDB calls that hang end inside the Lambda timeout, retries included, whatever the number of
 * calls a request makes: every request runs under a deadline (the time Lambda gives it, less
 * ANSWER_MARGIN_MS to answer), and the client starts no attempt that could end after it. Time here is
 * jest's fake clock, on which every attempt takes the longest the client's own timeouts allow
 * (`test/support/slow-dynamo.ts`). The loops that page or batch: `request-deadline.test.ts`.
 */
import { GetCommand } from '@aws-sdk/lib-dynamodb';
import { describe, expect, jest, test } from '@jest/globals';
import { FUNCTION_TIMEOUT } from '../../infra/functions.js';
import { apiGatewayEvent, lambdaContext } from '../../infra/local/api-event.js';
import { documentClient } from '../../infra/local/dynamo.js';
import { ANSWER_MARGIN_MS, asFollowUp, FOLLOW_UP_GRACE_MS, timeLeftMs, withDeadline, withinDeadline } from '../../shared/platform/time.js';
import { Overloaded } from '../../shared/platform/errors.js';
import { api } from '../../shared/platform/http/pipeline.js';
import { openapi } from '../../shared/meta/routes/openapi.js';
import {
  createDocumentClient,
  DYNAMO_TIMEOUTS,
  hasTimeFor,
  RETRY_POLICY,
  WORST_CASE_ATTEMPT_MS,
  worstCaseCallMs,
} from '../../shared/platform/dynamo/client.js';
import { onFakeTime, slowDynamo, useSlowDynamo } from '../support/slow-dynamo.js';

const TIMEOUT_MS = FUNCTION_TIMEOUT.toMilliseconds();
const get = () => new GetCommand({ TableName: 'tokens', Key: { token: 't' } });

describe('the bound', () => {
  test('the worst case of one call is its attempts hanging to both timeouts plus the longest backoffs', () => {
    const attempt = DYNAMO_TIMEOUTS.connectionTimeoutMs + DYNAMO_TIMEOUTS.requestTimeoutMs;
    expect(WORST_CASE_ATTEMPT_MS).toBe(attempt);
    expect(worstCaseCallMs()).toBeGreaterThanOrEqual(RETRY_POLICY.maxAttempts * attempt);
    expect(worstCaseCallMs()).toBeLessThanOrEqual(
      RETRY_POLICY.maxAttempts * attempt + (RETRY_POLICY.maxAttempts - 1) * RETRY_POLICY.maxDelayMs,
    );
  });

  test("the function timeout leaves a request's first call all its retries and the answer its margin", () => {
    expect(worstCaseCallMs() + ANSWER_MARGIN_MS).toBeLessThanOrEqual(TIMEOUT_MS);
  });

  test("a handler runs under its invocation's deadline: the time Lambda gives it less the answer's margin", async () => {
    const left = withinDeadline(async () => timeLeftMs());
    const inLambda = await left(undefined, { getRemainingTimeInMillis: () => TIMEOUT_MS });
    expect(inLambda).toBeLessThanOrEqual(TIMEOUT_MS - ANSWER_MARGIN_MS);
    expect(inLambda).toBeGreaterThan(TIMEOUT_MS - ANSWER_MARGIN_MS - 1_000);
    // Outside Lambda (a script), no deadline.
    expect(await left(undefined, {})).toBe(Infinity);
  });

  test('the JSON bundle runs the operation under that deadline', async () => {
    const handler = api(openapi, {}, async () => ({ left: timeLeftMs() }));
    const event = apiGatewayEvent({ method: 'GET', path: '/api/openapi.json', routeKey: 'GET /api/openapi.json' });
    // The request's log line is not this test's output.
    const quiet = jest.spyOn(process.stdout, 'write').mockImplementation(() => true);
    const response = await handler(event as Parameters<typeof handler>[0], lambdaContext('openapi', TIMEOUT_MS)).finally(() =>
      quiet.mockRestore(),
    );
    const { left } = JSON.parse(response.body!) as { left: number };
    expect(left).toBeLessThanOrEqual(TIMEOUT_MS - ANSWER_MARGIN_MS);
    expect(left).toBeGreaterThan(TIMEOUT_MS - ANSWER_MARGIN_MS - 1_000);
  });
});

describe('the client under a deadline', () => {
  useSlowDynamo();
  /** A deadline `ms` from now on the (fake) clock. */
  const within = (ms: number) => Date.now() + ms;

  test('a call with no time left for one attempt is 503 Overloaded at once: nothing is sent', async () => {
    const slow = slowDynamo(() => ({}));
    const { outcome } = await onFakeTime(() => withDeadline(within(WORST_CASE_ATTEMPT_MS - 1), () => slow.client.send(get())));
    await expect(outcome).rejects.toBeInstanceOf(Overloaded);
    expect(slow.seen.attempts).toBe(0);
  });

  test('a retry that could end after the deadline is not started: the call is 503 Overloaded (the first failure its cause), in time', async () => {
    const slow = slowDynamo(() => ({}));
    const budget = WORST_CASE_ATTEMPT_MS * 1.5;
    const { outcome, elapsed } = await onFakeTime(() => withDeadline(within(budget), () => slow.client.send(get())));
    await expect(outcome).rejects.toBeInstanceOf(Overloaded);
    await expect(outcome).rejects.toMatchObject({ cause: { name: 'TimeoutError' } });
    expect(slow.seen.attempts).toBe(1);
    expect(elapsed).toBeLessThanOrEqual(budget);
  });

  test('a follow-up of a change already made gets its attempt past the deadline, and ends inside the answer margin', async () => {
    expect(FOLLOW_UP_GRACE_MS).toBeGreaterThanOrEqual(WORST_CASE_ATTEMPT_MS);
    expect(FOLLOW_UP_GRACE_MS).toBeLessThan(ANSWER_MARGIN_MS);
    const slow = slowDynamo(() => ({ Item: { token: 't' } }));
    // The deadline has just passed: a call is refused before it is sent...
    const refused = await onFakeTime(() => withDeadline(within(-1), () => slow.client.send(get())));
    await expect(refused.outcome).rejects.toMatchObject({ name: 'Overloaded', cause: { message: expect.stringMatching(/no time left/) } });
    expect(slow.seen.attempts).toBe(0);
    // ...its follow-up is sent (here its one attempt hangs to its timeout, and no retry fits), in the grace.
    const followUp = await onFakeTime(() => withDeadline(within(-1), () => asFollowUp(() => slow.client.send(get()))));
    await expect(followUp.outcome).rejects.toMatchObject({ name: 'Overloaded', cause: { name: 'TimeoutError' } });
    expect(slow.seen.attempts).toBe(1);
    expect(followUp.elapsed).toBeLessThanOrEqual(FOLLOW_UP_GRACE_MS);
  });

  test('with time for its worst case, a call has all its retries and ends by the deadline', async () => {
    const slow = slowDynamo(() => ({ Item: { token: 't' } }));
    const { outcome, elapsed } = await onFakeTime(() => withDeadline(within(worstCaseCallMs()), () => slow.client.send(get())));
    await expect(outcome).resolves.toMatchObject({ Item: { token: 't' } });
    expect(slow.seen.attempts).toBe(RETRY_POLICY.maxAttempts);
    expect(elapsed).toBeLessThanOrEqual(worstCaseCallMs());
  });

  test("the embedded DynamoDB's client, as the local run builds it, has no deadline (no timeouts either: its time is the machine's load)", () => {
    const local = documentClient({
      endpoint: 'http://127.0.0.1:9',
      region: 'local',
      credentials: { accessKeyId: 'l', secretAccessKey: 'l' },
    });
    const inAws = createDocumentClient({ region: 'eu-west-1' });
    // The exemption is the local run's to give: the service's code knows no local client, an endpoint alone keeps the deadline.
    const endpointOnly = createDocumentClient({ endpoint: 'http://127.0.0.1:9' });
    expect(withDeadline(within(-1), () => [hasTimeFor(local, 1), hasTimeFor(inAws, 1), hasTimeFor(endpointOnly, 1)])).toEqual([
      true,
      false,
      false,
    ]);
  });
});
