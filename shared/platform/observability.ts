/**
 * What on-call reads, in three parts: the service's log lines, its metrics and the line every
 * request ends with, which carries both. Powertools writes them (Logger and Metrics); what is the
 * service's own is here: the metrics' names, the request line and its level rules.
 *
 * The logger is Powertools Logger: JSON lines (`level`, `message`, `timestamp`, `service`,
 * `sampling_rate`, `xray_trace_id`, then the fields), INFO and DEBUG to stdout, WARN and ERROR to
 * stderr, Lambda's level (`AWS_LAMBDA_LOG_LEVEL`, set by the stack from `POWERTOOLS_LOG_LEVEL`:
 * infra/functions.ts) first. While a request is served, every line carries its request id as
 * Powertools' `correlation_id` ({@link beginRequest}); the request's own line names it `request_id`,
 * as its answer and its audit record do. `POWERTOOLS_LOGGER_SAMPLE_RATE` logs that share of requests
 * at DEBUG. Off Lambda the lines may be text instead (`LOG_FORMAT=text`, `log-format.ts`); in AWS they
 * are always JSON. Nothing logs raw keys, whole tokens or bearer tokens (a key shows as its first 8
 * characters).
 *
 * Metrics are Powertools Metrics' embedded metric format (EMF): CloudWatch extracts them from the
 * function's log stream, so a metric costs no API call and no time in the request. Their names and
 * dimensions are constants: the functions write them, and the dashboard and alarms read them
 * (`infra/monitoring.ts`, `infra/dashboard.ts`), so that renaming a metric cannot silently blind an
 * alarm. What happens during a request (a DynamoDB retry, a token minted) is added to the
 * container's buffer and published on the request's own log line ({@link requestMetrics}), under
 * the request's operation. Lambda runs one request per container at a time, so the buffer (and the
 * correlation id) is the request's; the local run serves requests concurrently in one process,
 * where a retry may be published under a neighbour's operation (the counts stay right) and a line
 * may carry a neighbour's correlation id. The first request of a container also writes Powertools'
 * `ColdStart` metric (under the service and the function's name).
 *
 * The request's line is what on-call reads first. Its level says how the request ended (ERROR: 5xx;
 * WARN: a refusal that may be abuse or a partner out of quota: 401, 403, 429; INFO: everything
 * else), a refusal names its reason (the error's name and the message the caller got), and code
 * that holds the call may add fields of its own ({@link annotate}: the MCP method and tool) or note
 * a tool refused inside an MCP answer ({@link noteToolRefusal}). The message words are constants
 * ({@link REQUEST_ANSWERED}, {@link REQUEST_FAILED}): on-call's Logs Insights queries
 * (docs/runbook.md) match them and the benchmark reads their durations, so that rewording the line
 * is a visible change.
 */
import { Metrics, MetricUnit } from '@aws-lambda-powertools/metrics';
import type { CallContext } from './call.js';
import { loggingEnv } from './env.js';
import { namedError } from './http/named-error.js';
import { ServiceLogger, TextLogFormatter } from './log-format.js';

/**
 * Name, level and form from the parsed environment. The name is also the metrics' `service` dimension.
 */
const { POWERTOOLS_SERVICE_NAME: SERVICE, POWERTOOLS_LOG_LEVEL, LOG_FORMAT } = loggingEnv();

/**
 * Whether lines are text: never in Lambda; elsewhere when `LOG_FORMAT` is `text` (`npm start` in a
 * terminal sets it when unset: infra/local/log-format-default.ts). Otherwise JSON.
 */
const TEXT = process.env.AWS_LAMBDA_FUNCTION_NAME === undefined && LOG_FORMAT === 'text';

// === Names

/** The namespace of every metric the service writes. */
export const METRIC_NAMESPACE = 'GameSessionTokenService';

/**
 * The dimensions. Each is low-cardinality by construction: `operation` is a routes-table name,
 * `reason` an error class of THE error table, `tool` an MCP tool of the server (or `unknown`).
 * No key, org, token or request id is ever a dimension (each value would be a metric of its own).
 * Every set also names `service` (POWERTOOLS_SERVICE_NAME).
 */
export const DIMENSIONS = { service: 'service', operation: 'operation', reason: 'reason', tool: 'tool' } as const;

/** The metrics, by what they count. */
export const METRIC = {
  /** Every request answered, per operation (Count). */
  requests: 'Requests',
  /** The handler's time per request, per operation (Milliseconds; alarms read p99). */
  latency: 'Latency',
  /**
   * 1 for a request answered 5xx, 0 otherwise, per operation: its Average is the 5xx ratio and its
   * Sum the count, so one metric serves both the alarm and the graph.
   */
  serverErrors: 'ServerErrors',
  /** Requests refused below 500, per operation and reason (the error's name: `RateLimited`, `Unauthenticated`, ...). */
  refusals: 'Refusals',
  /** DynamoDB calls DynamoDB refused for capacity (each attempt), per operation. */
  dynamoThrottles: 'DynamoThrottles',
  /** DynamoDB attempts repeated by the client's retry policy (`shared/platform/dynamo/client.ts`), per operation. */
  dynamoRetries: 'DynamoRetries',
  /** Session tokens minted (create-session, MCP create_session), per operation. */
  tokensMinted: 'TokensMinted',
  /** Session tokens consumed (consume-session), per operation. */
  tokensConsumed: 'TokensConsumed',
  /** Session tokens revoked (revoke-session, MCP revoke_session), per operation. */
  tokensRevoked: 'TokensRevoked',
  /** Stored answers given again under an `Idempotency-Key`, per operation. */
  idempotentReplays: 'IdempotentReplays',
  /** MCP `tools/call` requests, per tool. */
  mcpToolCalls: 'McpToolCalls',
  /** Webhook delivery attempts that succeeded (a 2xx within 15 s), for the service (Count). */
  webhookDelivered: 'WebhookDelivered',
  /** Webhook delivery attempts that failed (any other outcome, 410 included), for the service (Count; the failure-rate alarm's numerator). */
  webhookFailed: 'WebhookFailed',
  /** Each webhook attempt's time to the answer's status line (or the failure), for the service (Milliseconds; p50/p99). */
  webhookLatency: 'WebhookLatency',
  /**
   * Stream records the events worker could not turn into events and kept on the stream failures
   * queue, for the service (Count; its alarm pages: docs/runbook.md#webhook-records-unreadable).
   */
  webhookRecordsUnreadable: 'WebhookRecordsUnreadable',
} as const;

/** A metric's name. */
export type MetricName = (typeof METRIC)[keyof typeof METRIC];

/** Every metric name the service writes, Powertools' `ColdStart` among them. */
const METRIC_NAMES = new Set<string>([...Object.values(METRIC), 'ColdStart']);

// === The logger

/** The request line's messages: a request answered below 500, and one answered 5xx. */
export const REQUEST_ANSWERED = 'request';
const REQUEST_FAILED = 'request failed';

/** The service's logger (Powertools Logger). Pure: a bundle that never logs (a worker that only counts) drops it. */
export const logger = /* @__PURE__ */ new ServiceLogger({
  serviceName: SERVICE,
  logLevel: POWERTOOLS_LOG_LEVEL,
  logFormatter: TEXT ? new TextLogFormatter(new Set([REQUEST_ANSWERED, REQUEST_FAILED]), (field) => METRIC_NAMES.has(field)) : undefined,
});

/**
 * A request begins: the lines written while it is served carry its id as `correlation_id`, and
 * the sampling (`POWERTOOLS_LOGGER_SAMPLE_RATE`) decides afresh whether they include DEBUG.
 */
export function beginRequest(requestId: string): void {
  logger.refreshSampleRateCalculation();
  logger.setCorrelationId(requestId);
}

// === Metrics

/** The request's metrics, buffered until its line; and the container's cold start. */
const metrics = /* @__PURE__ */ new Metrics({ namespace: METRIC_NAMESPACE, serviceName: SERVICE });

/** EMF holds at most 100 values of a metric on a line (Powertools writes a metric reaching it at once). */
const MAX_VALUES = 100;

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

/** The fields of an embedded-metric-format line. */
interface EmfFields {
  _aws: {
    Timestamp: number;
    CloudWatchMetrics: { Namespace: string; Dimensions: string[][]; Metrics: { Name: string; Unit: string }[] }[];
  };
  [field: string]: unknown;
}

/**
 * The request's metrics, as the embedded-metric-format fields of its log line (below): its count,
 * latency and 5xx flag under its operation (and the service), and the events counted during it;
 * the buffer is emptied for the next request. One line per request carries both the log and the
 * metrics, so that neither repeats the other's fields (a line of its own cost 440 bytes a request,
 * more than the log line itself); a refusal is counted there too, under its operation and reason,
 * and its reason alone. The `service` field is the log line's own (the logger and the metrics read
 * the same name).
 */
export function requestMetrics(outcome: RequestOutcome): Record<string, unknown> {
  metrics.addMetric(METRIC.requests, MetricUnit.Count, 1);
  metrics.addMetric(METRIC.latency, MetricUnit.Milliseconds, outcome.durationMs);
  metrics.addMetric(METRIC.serverErrors, MetricUnit.Count, outcome.status >= 500 ? 1 : 0);
  if (outcome.replayed) countEvent(METRIC.idempotentReplays);
  else if (outcome.status < 300) countTokenEvent(outcome.operation);
  // Under the operation, and the service as a whole: the alarm on requests API Gateway answered without a function reads the total.
  metrics.addDimension(DIMENSIONS.operation, outcome.operation);
  metrics.addDimensions({});
  const { service: _service, ...fields } = metrics.serializeMetrics() as unknown as EmfFields;
  metrics.clearMetrics();
  metrics.clearDimensions();
  if (outcome.reason === undefined || outcome.status >= 500) return fields;
  // A refusal on the same line, in a directive of its own (EMF allows several): its dimension sets
  // name `reason`, which the request's own sets must not (and one directive names one list of sets).
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

/**
 * Count one MCP `tools/call` under its tool (a name the server does not have is `unknown`: no
 * caller-made dimension): a line of its own, at once, so that the request's buffer stays for its
 * own line. Text lines (off Lambda) leave metrics out.
 */
export function countToolCall(tool: string | undefined): void {
  if (TEXT) return;
  const single = metrics.singleMetric();
  single.addDimension(DIMENSIONS.tool, tool ?? 'unknown');
  single.addMetric(METRIC.mcpToolCalls, MetricUnit.Count, 1);
}

/**
 * A worker's metrics, on a line of their own under the service alone (a worker has no request
 * line to carry them, and its own line leaves the current request's buffer alone in the local run,
 * where workers and requests share the process): `counts` once each, `timings` (milliseconds) as
 * values. Nothing is written when there is nothing to say, nor as text.
 */
export function writeWorkerMetrics(
  counts: Partial<Record<MetricName, number>>,
  timings: Partial<Record<MetricName, readonly number[]>> = {},
): void {
  const series = Object.entries(timings).filter(([, values]) => values.length > 0);
  if (TEXT || (Object.keys(counts).length === 0 && series.length === 0)) return;
  const line = new Metrics({ namespace: METRIC_NAMESPACE, serviceName: SERVICE, singleMetric: false });
  for (const [name, value] of Object.entries(counts)) line.addMetric(name, MetricUnit.Count, value);
  // EMF takes at most 100 values of a metric on a line: a longer series keeps its latest 99, so
  // that Powertools does not publish the line early (it writes a metric reaching 100 at once).
  for (const [name, values] of series)
    for (const value of values.slice(-(MAX_VALUES - 1))) line.addMetric(name, MetricUnit.Milliseconds, value);
  line.publishStoredMetrics();
}

// === The request's line

/** Refusals logged at WARN: a credential refused (repeated, a probe) or a key out of quota. */
const WARNED = new Set([401, 403, 429]);

/** Fields added to a request's line by the code serving it, by its call. */
const annotations = new WeakMap<CallContext, Record<string, unknown>>();

/** Add fields to the line of the request `call` belongs to (low in number; never a secret). */
export function annotate(call: CallContext, fields: Record<string, unknown>): void {
  annotations.set(call, { ...annotations.get(call), ...fields });
}

/** The reason of a tool refused inside an MCP answer (HTTP 200), by its call. */
const toolRefusals = new WeakMap<CallContext, string>();

/**
 * Record that a tool of the request `call` belongs to was refused inside its answer (a tool error
 * with HTTP 200): the line names the error, and the metrics count a refusal under its name, like
 * a REST refusal.
 */
export function noteToolRefusal(call: CallContext, error: Error): void {
  toolRefusals.set(call, error.name);
  annotate(call, { tool_error_name: error.name, tool_error_message: error.message });
}

/** What the bundle knows of a request once it is answered. */
export interface AnsweredRequest {
  readonly operation: string;
  /** The HTTP method (the text line shows it). */
  readonly method?: string;
  readonly status: number;
  readonly requestId: string;
  readonly durationMs: number;
  readonly call: CallContext | undefined;
  /** What ended the request, when something was thrown (or a refusal was stored for repeats). */
  readonly error: unknown;
  /** A stored answer given again under an `Idempotency-Key`. */
  readonly replayed: boolean;
  /** Further fields of the bundle (key prefix, actor). */
  readonly fields: Record<string, unknown>;
}

/**
 * Write a request's line, which also carries its metrics, and end its correlation id (the line
 * names it `request_id`). The container's first request writes the `ColdStart` metric first.
 */
export function logRequest(request: AnsweredRequest): void {
  if (!TEXT) metrics.captureColdStartMetric(process.env.AWS_LAMBDA_FUNCTION_NAME);
  const { status } = request;
  const refused = status >= 400 && status < 500;
  const named = refused ? namedError(request.error) : undefined;
  const reason = refused ? (named?.name ?? `Http${status}`) : undefined;
  const annotated = request.call ? annotations.get(request.call) : undefined;
  const fields = {
    operation: request.operation,
    method: request.method,
    status,
    request_id: request.requestId,
    duration_ms: request.durationMs,
    ...(request.call?.gatewayRequestId !== undefined && request.call.gatewayRequestId !== request.requestId
      ? { gateway_request_id: request.call.gatewayRequestId }
      : {}),
    source_ip: request.call?.sourceIp,
    ...request.fields,
    ...(request.replayed ? { idempotent_replayed: true } : {}),
    ...(reason !== undefined ? { error_name: reason, error_message: named?.message } : {}),
    ...annotated,
  };
  // A tool refused inside an MCP answer (HTTP 200, a tool error) is a refusal too, under its reason.
  const toolRefusal = request.call ? toolRefusals.get(request.call) : undefined;
  // The line is also the request's metrics (embedded metric format): CloudWatch reads them from it.
  const line = {
    ...fields,
    ...requestMetrics({
      operation: request.operation,
      status,
      durationMs: request.durationMs,
      reason: reason ?? toolRefusal,
      replayed: request.replayed,
    }),
  };
  logger.removeKeys(['correlation_id']);
  if (status >= 500) logger.error(REQUEST_FAILED, { ...line, error: (request.error as Error | undefined) ?? undefined });
  else if (WARNED.has(status)) logger.warn(REQUEST_ANSWERED, line);
  else logger.info(REQUEST_ANSWERED, line);
}
