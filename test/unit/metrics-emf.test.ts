/**
 * The service writes its EMF lines itself (shared/platform/observability.ts; until issue 25 Powertools Metrics
 * wrote them, 10 KB in every bundle): the lines are the ones Powertools Metrics writes for the same
 * counts, field for field and in the same order, so the dashboard, the alarms and any query of the
 * logs read them as before.
 */
import { expect, test } from '@jest/globals';
import { Metrics, MetricUnit } from '@aws-lambda-powertools/metrics';
import { countEvent, countToolCall, requestMetrics, DIMENSIONS, METRIC, METRIC_NAMESPACE } from '../../shared/platform/observability.js';
import { loggingEnv } from '../../shared/platform/env.js';

const serviceName = loggingEnv().POWERTOOLS_SERVICE_NAME;

/** Timestamps aside (each line takes its own `Date.now()`). */
function untimed(fields: unknown): unknown {
  return JSON.parse(JSON.stringify(fields).replace(/"Timestamp":\d+/g, '"Timestamp":0'));
}

/** What the request's line held when Powertools wrote it (the code before issue 25). */
function powertoolsRequest(
  events: readonly (readonly [string, number])[],
  operation: string,
  durationMs: number,
  status: number,
  event?: string,
): Record<string, unknown> {
  const metrics = new Metrics({ namespace: METRIC_NAMESPACE, serviceName });
  for (const [name, value] of events) metrics.addMetric(name, MetricUnit.Count, value);
  metrics.addDimension(DIMENSIONS.operation, operation);
  metrics.addDimensions({});
  metrics.addMetric(METRIC.requests, MetricUnit.Count, 1);
  metrics.addMetric(METRIC.latency, MetricUnit.Milliseconds, durationMs);
  metrics.addMetric(METRIC.serverErrors, MetricUnit.Count, status >= 500 ? 1 : 0);
  if (event) metrics.addMetric(event, MetricUnit.Count, 1);
  const { service: _service, ...fields } = metrics.serializeMetrics() as Record<string, unknown>;
  return fields;
}

test('a request line: the events counted during it (a repeat as an array), then its count, latency and 5xx flag, its token event', () => {
  countEvent(METRIC.dynamoRetries);
  countEvent(METRIC.dynamoThrottles);
  countEvent(METRIC.dynamoRetries, 2);
  const line = requestMetrics({ operation: 'create-session', status: 201, durationMs: 12.5 });
  // Field for field in the same order: CloudWatch reads the JSON, people read the line.
  expect(JSON.stringify(untimed(line))).toBe(
    JSON.stringify(
      untimed(
        powertoolsRequest(
          [
            [METRIC.dynamoRetries, 1],
            [METRIC.dynamoThrottles, 1],
            [METRIC.dynamoRetries, 2],
          ],
          'create-session',
          12.5,
          201,
          METRIC.tokensMinted,
        ),
      ),
    ),
  );
  expect((line._aws as { Timestamp: number }).Timestamp).toBeGreaterThan(Date.now() - 60_000);
});

test('a replay and a 5xx: the buffer is the next request’s alone', () => {
  const replay = requestMetrics({ operation: 'create-session', status: 201, durationMs: 3, replayed: true });
  expect(JSON.stringify(untimed(replay))).toBe(
    JSON.stringify(untimed(powertoolsRequest([], 'create-session', 3, 201, METRIC.idempotentReplays))),
  );
  const failed = requestMetrics({ operation: 'usage', status: 500, durationMs: 7, reason: 'Boom' });
  expect(JSON.stringify(untimed(failed))).toBe(JSON.stringify(untimed(powertoolsRequest([], 'usage', 7, 500))));
});

test('an MCP tool call: a line of its own at once, under the service and the tool', () => {
  const written: string[] = [];
  const write = process.stdout.write;
  process.stdout.write = ((chunk: string) => written.push(chunk) > 0) as typeof process.stdout.write;
  try {
    countToolCall('create_session');
    countToolCall(undefined);
    const powertools = new Metrics({ namespace: METRIC_NAMESPACE, serviceName });
    for (const tool of ['create_session', 'unknown']) {
      const single = powertools.singleMetric();
      single.addDimension(DIMENSIONS.tool, tool);
      single.addMetric(METRIC.mcpToolCalls, MetricUnit.Count, 1);
    }
  } finally {
    process.stdout.write = write;
  }
  expect(written).toHaveLength(4);
  const [ours, theirs] = [written.slice(0, 2), written.slice(2)].map((lines) =>
    lines.map((line) => line.replace(/"Timestamp":\d+/, '"Timestamp":0')),
  );
  expect(ours).toEqual(theirs);
});

test('a metric counted 100 times in one request is written at once (EMF holds 100 values), under the service', () => {
  const written: string[] = [];
  const write = process.stdout.write;
  process.stdout.write = ((chunk: string) => written.push(chunk) > 0) as typeof process.stdout.write;
  const powertools = new Metrics({ namespace: METRIC_NAMESPACE, serviceName });
  try {
    for (let i = 0; i < 101; i++) countEvent(METRIC.dynamoRetries);
    for (let i = 0; i < 101; i++) powertools.addMetric(METRIC.dynamoRetries, MetricUnit.Count, 1);
  } finally {
    process.stdout.write = write;
  }
  expect(written.map((line) => line.replace(/"Timestamp":\d+/, '"Timestamp":0'))).toEqual([
    expect.stringContaining('"DynamoRetries":[1,1'),
    written[0]!.replace(/"Timestamp":\d+/, '"Timestamp":0'),
  ]);
  // The 101st is the next request's.
  const line = requestMetrics({ operation: 'health', status: 200, durationMs: 1 });
  expect(line[METRIC.dynamoRetries]).toBe(1);
});
