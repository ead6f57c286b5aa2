/**
 * The service's metrics, written as CloudWatch embedded metric format (EMF) lines by Powertools
 * Metrics: CloudWatch extracts them from the function's log stream, so a metric costs no API call
 * and no time in the request. Names and dimensions: `metric-names.ts`.
 *
 * What happens during a request (a DynamoDB retry, a token minted) is added to the container's
 * buffer and published on the request's own log line ({@link requestMetrics}), under the request's
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

/** How one request ended, as {@link requestMetrics} counts it. */
export interface RequestOutcome {
  readonly operation: string;
  readonly status: number;
  readonly durationMs: number;
  /** The refusal's error name (below 500, or an MCP tool's refusal inside a 200); undefined for a success or a failure. */
  readonly reason?: string | undefined;
  /** A stored answer given again under an `Idempotency-Key`. */
  readonly replayed?: boolean;
}

/**
 * The request's metrics, as the embedded-metric-format fields of its log line (`request-log.ts`):
 * its count, latency and 5xx flag under its operation (and the service), and the events counted
 * during it. One line per request carries both the log and the metrics, so that neither repeats the
 * other's fields (a line of its own cost 440 bytes a request, more than the log line itself); a
 * refusal is counted there too, under its operation and reason, and its reason alone. The `service`
 * field is the log line's own (the logger and the metrics read the same name).
 */
export function requestMetrics(outcome: RequestOutcome): Record<string, unknown> {
  metrics.addDimension(DIMENSIONS.operation, outcome.operation);
  // And the service as a whole: the alarm on requests API Gateway answered without a function reads the total.
  metrics.addDimensions({});
  metrics.addMetric(METRIC.requests, MetricUnit.Count, 1);
  metrics.addMetric(METRIC.latency, MetricUnit.Milliseconds, outcome.durationMs);
  metrics.addMetric(METRIC.serverErrors, MetricUnit.Count, outcome.status >= 500 ? 1 : 0);
  if (outcome.replayed) countEvent(METRIC.idempotentReplays);
  else if (outcome.status < 300) countTokenEvent(outcome.operation);
  const { service: _service, ...fields } = metrics.serializeMetrics() as EmfFields;
  metrics.clearMetrics();
  metrics.clearDimensions();
  if (outcome.reason === undefined || outcome.status >= 500) return fields;
  // A refusal on the same line, in a directive of its own (EMF allows several): its dimension sets
  // name `reason`, which the request's own sets must not (and Powertools writes one directive only).
  fields._aws.CloudWatchMetrics.push({
    Namespace: METRIC_NAMESPACE,
    // By operation and reason, and by reason alone: the service's 429s (partners out of quota) on one line of the dashboard.
    Dimensions: [
      [DIMENSIONS.service, DIMENSIONS.operation, DIMENSIONS.reason],
      [DIMENSIONS.service, DIMENSIONS.reason],
    ],
    Metrics: [{ Name: METRIC.refusals, Unit: MetricUnit.Count }],
  });
  return { ...fields, [DIMENSIONS.reason]: outcome.reason, [METRIC.refusals]: 1 };
}

/** The fields of an embedded-metric-format line, as Powertools serializes them. */
interface EmfFields {
  _aws: { CloudWatchMetrics: { Namespace: string; Dimensions: string[][]; Metrics: { Name: string; Unit: string }[] }[] };
  [field: string]: unknown;
}

/** Count one MCP `tools/call` under its tool (a name the server does not have is `unknown`: no caller-made dimension). */
export function countToolCall(tool: string | undefined): void {
  const single = metrics.singleMetric();
  single.addDimension(DIMENSIONS.tool, tool ?? 'unknown');
  single.addMetric(METRIC.mcpToolCalls, MetricUnit.Count, 1);
}
