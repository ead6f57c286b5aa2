/**
 * What on-call reads, over HTTP: for a create / validate / consume / 429 / 401 sequence, the
 * request lines (level by outcome, the refusal's reason, the request id) and the embedded metric
 * format (EMF) lines CloudWatch turns into the metrics the dashboard and alarms read.
 */
import { afterAll, beforeAll, describe, expect, test } from '@jest/globals';
import { METRIC, METRIC_NAMESPACE } from '../../shared/platform/observability.js';
import { FaultInjector, type CallRecord } from '../support/faults.js';
import { createTestKey, startOfNextMinute, type TestKey } from '../support/keys.js';
import { capturedLogs, startStack, type Stack } from '../support/local-stack.js';
import { sessionsApi } from '../support/sessions-api.js';

let stack: Stack;
let api: ReturnType<typeof sessionsApi>;
let key: TestKey;
let faults: FaultInjector;
beforeAll(async () => {
  stack = await startStack();
  faults = new FaultInjector(stack.services.client);
  key = await createTestKey(stack, { rate_limit_per_minute: 3 });
  api = sessionsApi(stack, () => key.raw);
});
afterAll(() => stack.stop());

type Line = Record<string, any>;

/** The JSON lines the service wrote since `from`. */
function linesSince(from: number): Line[] {
  return capturedLogs
    .slice(from)
    .join('')
    .split('\n')
    .filter((l) => l.startsWith('{'))
    .map((l) => JSON.parse(l) as Line);
}
const requestLines = (lines: Line[]) => lines.filter((l) => l.message === 'request' || l.message === 'request failed');
const emfLines = (lines: Line[]) => lines.filter((l) => l._aws !== undefined);
/** The metric names an EMF line declares (every directive), with its first directive's dimension sets. */
const declared = (line: Line) => ({
  namespace: line._aws.CloudWatchMetrics[0].Namespace as string,
  dimensions: line._aws.CloudWatchMetrics[0].Dimensions as string[][],
  names: (line._aws.CloudWatchMetrics as { Metrics: { Name: string }[] }[]).flatMap((d) => d.Metrics.map((m) => m.Name)),
});

describe('a create / validate / consume / 429 / 401 sequence', () => {
  let lines: Line[];
  beforeAll(async () => {
    startOfNextMinute(stack);
    const from = capturedLogs.length;
    const created = await stack.post('create-session', { game_id: 101 }, { 'x-api-key': key.raw, 'x-request-id': 'partner-req.0001' });
    expect(created.status).toBe(200);
    expect(created.headers.get('x-request-id')).toBe('partner-req.0001');
    const token = created.body.data.token as string;
    expect((await api.validate(token)).status).toBe(200);
    expect((await api.consume({ token, player_uuid: 'p-1' })).status).toBe(200);
    expect((await api.create({ game_id: 101 })).status).toBe(200);
    expect((await api.create({ game_id: 101 })).status).toBe(200);
    const limited = await api.create({ game_id: 101 });
    expect(limited.status).toBe(429);
    const unauthenticated = await stack.post('create-session', { game_id: 101 }, { 'x-request-id': 'bad id with spaces' });
    expect(unauthenticated.status).toBe(401);
    // An id that is not 1 to 128 of [A-Za-z0-9._-] is replaced by the request's own.
    expect(unauthenticated.headers.get('x-request-id')).toMatch(/^[0-9a-f-]{36}$/);
    lines = linesSince(from);
  });

  test('one request line each, at the level of its outcome, with the reason of every refusal', () => {
    const requests = requestLines(lines);
    expect(requests.map((l) => [l.operation, l.status, l.level])).toEqual([
      ['create-session', 200, 'INFO'],
      ['validate-session', 200, 'INFO'],
      ['consume-session', 200, 'INFO'],
      ['create-session', 200, 'INFO'],
      ['create-session', 200, 'INFO'],
      ['create-session', 429, 'WARN'],
      ['create-session', 401, 'WARN'],
    ]);
    expect(requests[0]!.request_id).toBe('partner-req.0001');
    expect(requests[0]!.gateway_request_id).toMatch(/^[0-9a-f-]{36}$/);
    expect(requests[0]!.source_ip).toMatch(/127\.0\.0\.1|::1/);
    expect(requests[5]).toMatchObject({ error_name: 'RateLimited', error_message: expect.stringMatching(/^Rate limit exceeded/) });
    expect(requests[6]).toMatchObject({ error_name: 'Unauthenticated', error_message: expect.any(String) });
    for (const success of requests.slice(0, 5)) expect(success.error_name).toBeUndefined();
    // The org of every call its key authenticated (on-call's "one org's requests" query); none for a 401.
    expect(requests.filter((l) => l.operation === 'create-session').map((l) => l.org_id)).toEqual([1, 1, 1, 1, undefined]);
  });

  test('EMF lines: count, latency and 5xx flag per operation; tokens minted and consumed; refusals by reason', () => {
    const emf = emfLines(lines);
    for (const line of emf) expect(declared(line).namespace).toBe(METRIC_NAMESPACE);
    const perRequest = emf.filter((l) => declared(l).names.includes(METRIC.requests));
    expect(perRequest.map((l) => l.operation)).toEqual(requestLines(lines).map((l) => l.operation));
    for (const line of perRequest) {
      expect(declared(line).dimensions).toEqual([['service', 'operation'], ['service']]);
      expect(line[METRIC.requests]).toBe(1);
      expect(line[METRIC.serverErrors]).toBe(0);
      expect(typeof line[METRIC.latency]).toBe('number');
    }
    const sum = (name: string) => perRequest.reduce((total, l) => total + (l[name] ?? 0), 0);
    expect(sum(METRIC.tokensMinted)).toBe(3);
    expect(sum(METRIC.tokensConsumed)).toBe(1);
    // Refusals by operation and reason; no key, token or request id is a dimension.
    const refusals = emf.filter((l) => declared(l).names.includes(METRIC.refusals));
    // Counted on the request's own line, in a second directive: under its operation and reason, and its reason alone.
    expect(refusals.map((l) => [l.message, l.operation, l.reason, l[METRIC.refusals]])).toEqual([
      ['request', 'create-session', 'RateLimited', 1],
      ['request', 'create-session', 'Unauthenticated', 1],
    ]);
    for (const line of refusals)
      expect(line._aws.CloudWatchMetrics[1]).toEqual({
        Namespace: METRIC_NAMESPACE,
        Dimensions: [
          ['service', 'operation', 'reason'],
          ['service', 'reason'],
        ],
        Metrics: [{ Name: METRIC.refusals, Unit: 'Count' }],
      });
    // One line per request: the log line is the metrics line. (Powertools' ColdStart line is
    // Lambda's alone: it is written only where AWS_LAMBDA_INITIALIZATION_TYPE is on-demand.)
    expect(emf.filter((l) => l.message === undefined)).toEqual([]);
    // No key, token or request id is a dimension (they are log fields of the same line, never metrics).
    const dimensionNames = new Set(
      emf.flatMap((l) => (l._aws.CloudWatchMetrics as { Dimensions: string[][] }[]).flatMap((d) => d.Dimensions.flat())),
    );
    expect([...dimensionNames].sort()).toEqual(['operation', 'reason', 'service']);
  });
});

describe('idempotent replays', () => {
  test('a stored answer given again counts as a replay, not as a token minted', async () => {
    const partner = await createTestKey(stack);
    const send = () => stack.post('create-session', { game_id: 101 }, { 'x-api-key': partner.raw, 'idempotency-key': 'obs-1' });
    expect((await send()).status).toBe(200);
    const from = capturedLogs.length;
    const again = await send();
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    const [line] = emfLines(linesSince(from));
    expect(line).toMatchObject({ operation: 'create-session', [METRIC.idempotentReplays]: 1 });
    expect(line![METRIC.tokensMinted]).toBeUndefined();
    expect(requestLines(linesSince(from))[0]).toMatchObject({ idempotent_replayed: true });
  });
});

describe('DynamoDB throttling', () => {
  test('a throttled attempt and its retry are counted under the operation; throttling that outlasts the retries is a 5xx', async () => {
    const partner = await createTestKey(stack);
    const token = await api.mint({ game_id: 101 }, partner.raw);
    let from = capturedLogs.length;
    // The validate's read of the token, whatever else the stack's client does meanwhile (a call of
    // an earlier request finishing on a loaded machine took the fault once, and the read passed).
    const tokenRead = (c: CallRecord) => c.command === 'GetItem' && c.table === 'tokens';
    faults.arm({ kind: 'throttle', call: tokenRead, persistent: false });
    expect((await api.validate(token)).status).toBe(200);
    faults.disarm();
    let [line] = emfLines(linesSince(from));
    expect(line).toMatchObject({ operation: 'validate-session', [METRIC.dynamoThrottles]: 1, [METRIC.dynamoRetries]: 1 });

    from = capturedLogs.length;
    faults.arm({ kind: 'throttle', call: tokenRead, persistent: true });
    expect((await api.validate(token)).status).toBe(503);
    faults.disarm();
    [line] = emfLines(linesSince(from));
    // EMF keeps each count as a value of its own (CloudWatch sums them).
    expect(line).toMatchObject({ operation: 'validate-session', [METRIC.serverErrors]: 1, [METRIC.dynamoRetries]: [1, 1] });
    expect(line![METRIC.dynamoThrottles]).toEqual([1, 1, 1]);
    expect(requestLines(linesSince(from))[0]).toMatchObject({ level: 'ERROR', status: 503 });
  });
});
