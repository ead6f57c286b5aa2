/**
 * The service's metrics, written as CloudWatch embedded metric format (EMF) lines by Powertools
 * Metrics: CloudWatch extracts them from the function's log stream, so a metric costs no API call
 * and no time in the request. Names and dimensions: `metric-names.ts`.
 *
 * What happens during a request (a DynamoDB retry, a token minted) is added to the container's
 * buffer and published with the request's own line by {@link publishRequest}, under the request's
 * operation. Lambda runs one request per container at a time, so the buffer is the request's; the
 * local run serves requests concurrently in one process, where a retry may be published under a
 * neighbour's operation (the counts stay right).
 */
import { Metrics, MetricUnit } from '@aws-lambda-powertools/metrics';
import { loggingEnv } from './env.js';
import { DIMENSIONS, METRIC, METRIC_NAMESPACE, type MetricName } from './metric-names.js';

const metrics = new Metrics({ namespace: METRIC_NAMESPACE, serviceName: loggingEnv().POWERTOOLS_SERVICE_NAME });

/** Token events by the operation (REST) or tool (MCP) that causes them when it succeeds. */
const TOKEN_EVENTS: Readonly<Record<string, MetricName>> = {
  'create-session': METRIC.tokensMinted,
  'consume-session': METRIC.tokensConsumed,
  'revoke-session': METRIC.tokensRevoked,
  create_session: METRIC.tokensMinted,
  revoke_session: METRIC.tokensRevoked,
};

/** Count one event of the current request (published with it, under its operation). */
export function countEvent(name: MetricName, value = 1): void {
  metrics.addMetric(name, MetricUnit.Count, value);
}

/** Count the token event of an operation or tool that succeeded, if it has one. */
export function countTokenEvent(operationOrTool: string): void {
  const event = TOKEN_EVENTS[operationOrTool];
  if (event) countEvent(event);
}

/** How one request ended, as {@link publishRequest} counts it. */
export interface RequestOutcome {
  readonly operation: string;
  readonly status: number;
  readonly durationMs: number;
  /** The refusal's error name (below 500); undefined for a success or a failure. */
  readonly reason?: string | undefined;
  /** A stored answer given again under an `Idempotency-Key`. */
  readonly replayed?: boolean;
}

/**
 * Publish the request's line: its count, latency and 5xx flag under its operation (and the service),
 * the events counted during it, and, for a refusal, one count under its operation and reason (and
 * its reason alone).
 */
export function publishRequest(outcome: RequestOutcome): void {
  metrics.addDimension(DIMENSIONS.operation, outcome.operation);
  // And the service as a whole: the alarm on requests API Gateway answered without a function reads the total.
  metrics.addDimensions({});
  metrics.addMetric(METRIC.requests, MetricUnit.Count, 1);
  metrics.addMetric(METRIC.latency, MetricUnit.Milliseconds, outcome.durationMs);
  metrics.addMetric(METRIC.serverErrors, MetricUnit.Count, outcome.status >= 500 ? 1 : 0);
  if (outcome.replayed) countEvent(METRIC.idempotentReplays);
  else if (outcome.status < 300) countTokenEvent(outcome.operation);
  metrics.publishStoredMetrics();
  if (outcome.reason !== undefined && outcome.status < 500) {
    const { operation, reason } = outcome;
    // Two lines, not one line with two dimension sets: Powertools warns (into the log, on every
    // refusal) when a dimension appears in two sets of one line.
    countRefusal({ [DIMENSIONS.operation]: operation, [DIMENSIONS.reason]: reason });
    // And by reason alone: the service's 429s (partners out of quota) on one line of the dashboard.
    countRefusal({ [DIMENSIONS.reason]: reason });
  }
}

/** One refusal under `dimensions` (and the service). */
function countRefusal(dimensions: Record<string, string>): void {
  const refusal = metrics.singleMetric();
  refusal.addDimensions(dimensions);
  refusal.addMetric(METRIC.refusals, MetricUnit.Count, 1);
}

/** Count one MCP `tools/call` under its tool (a name the server does not have is `unknown`: no caller-made dimension). */
export function countToolCall(tool: string | undefined): void {
  const single = metrics.singleMetric();
  single.addDimension(DIMENSIONS.tool, tool ?? 'unknown');
  single.addMetric(METRIC.mcpToolCalls, MetricUnit.Count, 1);
}
