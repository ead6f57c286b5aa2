/**
 * The metrics the dashboard and alarms read (shared/platform/observability.ts, written by
 * Powertools Metrics in the embedded metric format): their names, units and dimension sets, on the
 * request's own line, on an MCP tool call's line and on a worker's line.
 */
import { expect, test } from '@jest/globals';
import {
  countEvent,
  countToolCall,
  requestMetrics,
  writeWorkerMetrics,
  DIMENSIONS,
  METRIC,
  METRIC_NAMESPACE,
} from '../../shared/platform/observability.js';

/** Timestamps aside (each line takes its own `Date.now()`). */
function untimed(fields: unknown): unknown {
  return JSON.parse(JSON.stringify(fields).replace(/"Timestamp":\d+/g, '"Timestamp":0'));
}

/** The lines `write` puts on stdout, parsed, timestamps aside. */
function stdoutLines(write: () => void): unknown[] {
  const written: string[] = [];
  const out = process.stdout.write;
  process.stdout.write = ((chunk: string) => written.push(chunk) > 0) as typeof process.stdout.write;
  try {
    write();
  } finally {
    process.stdout.write = out;
  }
  return written.map((line) => untimed(JSON.parse(line)));
}

const REQUEST_SETS = [[DIMENSIONS.service, DIMENSIONS.operation], [DIMENSIONS.service]];

test('a request line: the events counted during it (a repeat as an array), then its count, latency and 5xx flag, its token event', () => {
  countEvent(METRIC.dynamoRetries);
  countEvent(METRIC.dynamoThrottles);
  countEvent(METRIC.dynamoRetries, 2);
  const line = requestMetrics({ operation: 'create-session', status: 201, durationMs: 12.5 });
  expect((line._aws as { Timestamp: number }).Timestamp).toBeGreaterThan(Date.now() - 60_000);
  // Field for field in this order: CloudWatch reads the JSON, people read the line.
  expect(JSON.stringify(untimed(line))).toBe(
    JSON.stringify({
      _aws: {
        Timestamp: 0,
        CloudWatchMetrics: [
          {
            Namespace: METRIC_NAMESPACE,
            Dimensions: REQUEST_SETS,
            Metrics: [
              { Name: METRIC.dynamoRetries, Unit: 'Count' },
              { Name: METRIC.dynamoThrottles, Unit: 'Count' },
              { Name: METRIC.requests, Unit: 'Count' },
              { Name: METRIC.latency, Unit: 'Milliseconds' },
              { Name: METRIC.serverErrors, Unit: 'Count' },
              { Name: METRIC.tokensMinted, Unit: 'Count' },
            ],
          },
        ],
      },
      operation: 'create-session',
      [METRIC.dynamoRetries]: [1, 2],
      [METRIC.dynamoThrottles]: 1,
      [METRIC.requests]: 1,
      [METRIC.latency]: 12.5,
      [METRIC.serverErrors]: 0,
      [METRIC.tokensMinted]: 1,
    }),
  );
});

test('a replay counts a replay, not a token; a 5xx its flag; the buffer is the next request’s alone', () => {
  const replay = requestMetrics({ operation: 'create-session', status: 201, durationMs: 3, replayed: true });
  expect(replay).toMatchObject({ [METRIC.idempotentReplays]: 1, [METRIC.serverErrors]: 0 });
  expect(replay[METRIC.tokensMinted]).toBeUndefined();
  const failed = requestMetrics({ operation: 'usage', status: 500, durationMs: 7, reason: 'Boom' });
  expect(untimed(failed)).toEqual({
    _aws: {
      Timestamp: 0,
      CloudWatchMetrics: [
        {
          Namespace: METRIC_NAMESPACE,
          Dimensions: REQUEST_SETS,
          Metrics: [
            { Name: METRIC.requests, Unit: 'Count' },
            { Name: METRIC.latency, Unit: 'Milliseconds' },
            { Name: METRIC.serverErrors, Unit: 'Count' },
          ],
        },
      ],
    },
    operation: 'usage',
    [METRIC.requests]: 1,
    [METRIC.latency]: 7,
    [METRIC.serverErrors]: 1,
  });
});

test('a refusal: counted on the request line in a directive of its own, by operation and reason and by reason alone', () => {
  const line = requestMetrics({ operation: 'create-session', status: 429, durationMs: 2, reason: 'RateLimited' });
  expect((untimed(line) as { _aws: { CloudWatchMetrics: unknown[] } })._aws.CloudWatchMetrics[1]).toEqual({
    Namespace: METRIC_NAMESPACE,
    Dimensions: [
      [DIMENSIONS.service, DIMENSIONS.operation, DIMENSIONS.reason],
      [DIMENSIONS.service, DIMENSIONS.reason],
    ],
    Metrics: [{ Name: METRIC.refusals, Unit: 'Count' }],
  });
  expect(line).toMatchObject({ reason: 'RateLimited', [METRIC.refusals]: 1 });
});

test('an MCP tool call: a line of its own at once, under the service and the tool (unknown for a name the server lacks)', () => {
  const lines = stdoutLines(() => {
    countToolCall('create_session');
    countToolCall(undefined);
  });
  expect(lines).toEqual(
    ['create_session', 'unknown'].map((tool) => ({
      _aws: {
        Timestamp: 0,
        CloudWatchMetrics: [
          {
            Namespace: METRIC_NAMESPACE,
            Dimensions: [[DIMENSIONS.service, DIMENSIONS.tool]],
            Metrics: [{ Name: METRIC.mcpToolCalls, Unit: 'Count' }],
          },
        ],
      },
      service: 'game-session-token-service',
      tool,
      [METRIC.mcpToolCalls]: 1,
    })),
  );
  // The request's buffer is untouched.
  expect(requestMetrics({ operation: 'mcp', status: 200, durationMs: 1 })[METRIC.mcpToolCalls]).toBeUndefined();
});

test('a worker: one line under the service, counts once each, timings as values (at most 99 of a series)', () => {
  const lines = stdoutLines(() => {
    writeWorkerMetrics({ [METRIC.webhookDelivered]: 3, [METRIC.webhookFailed]: 0 }, { [METRIC.webhookLatency]: [120, 80] });
    writeWorkerMetrics({}, { [METRIC.webhookLatency]: [] });
    writeWorkerMetrics({}, { [METRIC.webhookLatency]: Array.from({ length: 150 }, (_, i) => i) });
  });
  expect(lines).toHaveLength(2);
  expect(lines[0]).toEqual({
    _aws: {
      Timestamp: 0,
      CloudWatchMetrics: [
        {
          Namespace: METRIC_NAMESPACE,
          Dimensions: [[DIMENSIONS.service]],
          Metrics: [
            { Name: METRIC.webhookDelivered, Unit: 'Count' },
            { Name: METRIC.webhookFailed, Unit: 'Count' },
            { Name: METRIC.webhookLatency, Unit: 'Milliseconds' },
          ],
        },
      ],
    },
    service: 'game-session-token-service',
    [METRIC.webhookDelivered]: 3,
    [METRIC.webhookFailed]: 0,
    [METRIC.webhookLatency]: [120, 80],
  });
  // The latest values of a long series.
  expect((lines[1] as Record<string, number[]>)[METRIC.webhookLatency]).toEqual(Array.from({ length: 99 }, (_, i) => i + 51));
});

test('a metric counted 100 times in one request is written at once (EMF holds 100 values), under the service', () => {
  const lines = stdoutLines(() => {
    for (let i = 0; i < 101; i++) countEvent(METRIC.dynamoRetries);
  });
  expect(lines).toEqual([
    expect.objectContaining({
      _aws: expect.objectContaining({ CloudWatchMetrics: [expect.objectContaining({ Dimensions: [[DIMENSIONS.service]] })] }),
      [METRIC.dynamoRetries]: Array.from({ length: 100 }, () => 1),
    }),
  ]);
  // The 101st is the next request's.
  const line = requestMetrics({ operation: 'health', status: 200, durationMs: 1 });
  expect(line[METRIC.dynamoRetries]).toBe(1);
});
