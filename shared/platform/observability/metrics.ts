/**
 * The service's metrics, written as CloudWatch embedded metric format (EMF) lines: CloudWatch
 * extracts them from the function's log stream, so a metric costs no API call and no time in the
 * request. Written here, not by Powertools Metrics (until issue 25), in the same form: a dozen
 * lines instead of 10 KB in every bundle (BENCHMARKS.md, "Bundles and cold starts").
 *
 * The metrics' names and dimensions come first: the functions write them, and the dashboard and
 * alarms read them (`infra/monitoring.ts`, `infra/dashboard.ts`), one constant each, so that
 * renaming a metric cannot silently blind an alarm.
 *
 * What happens during a request (a DynamoDB retry, a token minted) is added to the container's
 * buffer and published on the request's own log line ({@link requestMetrics}), under the request's
 * operation. Lambda runs one request per container at a time, so the buffer is the request's; the
 * local run serves requests concurrently in one process, where a retry may be published under a
 * neighbour's operation (the counts stay right).
 */
import { loggingEnv } from '../env.js';

// --- Names

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
  /** Webhook delivery attempts answered 2xx in time, under the service alone (the delivery worker; no endpoint is a dimension). */
  webhookDelivered: 'WebhookDelivered',
  /** Webhook delivery attempts that failed (refused address, timeout, non-2xx), under the service alone. */
  webhookFailed: 'WebhookFailed',
  /** A webhook delivery attempt's time, request to answer or failure (Milliseconds), under the service alone. */
  webhookLatency: 'WebhookLatency',
} as const;

/** A metric's name. */
export type MetricName = (typeof METRIC)[keyof typeof METRIC];

// --- Writing them

/** The units the service's metrics use (CloudWatch's names). */
const UNIT = { count: 'Count', milliseconds: 'Milliseconds' } as const;
type Unit = (typeof UNIT)[keyof typeof UNIT];

/** EMF allows at most 100 values per metric on a line: a metric reaching it is written at once. */
const MAX_VALUES = 100;

/** The `service` dimension's value: the logger's service name, read once. */
const SERVICE = loggingEnv().POWERTOOLS_SERVICE_NAME;

/** The container's buffer of the current request's metrics, in the order first counted (a repeat adds a value). */
const buffer = new Map<MetricName, { unit: Unit; values: number[] }>();

function addMetric(name: MetricName, unit: Unit, value: number): void {
  const stored = buffer.get(name);
  if (!stored) buffer.set(name, { unit, values: [value] });
  else {
    stored.values.push(value);
    if (stored.values.length === MAX_VALUES) writeLine(takeBuffer({}, [[DIMENSIONS.service]]));
  }
}

/**
 * The buffered metrics as the fields of an EMF line under the dimension `sets`, the buffer emptied.
 * The fields' order and form are those Powertools Metrics wrote: `_aws`, the dimensions' values
 * (`service` first), each metric's value (an array when counted more than once).
 */
function takeBuffer(dimensions: Readonly<Record<string, string>>, sets: string[][]): EmfFields {
  const fields: EmfFields = {
    _aws: {
      Timestamp: Date.now(),
      CloudWatchMetrics: [
        { Namespace: METRIC_NAMESPACE, Dimensions: sets, Metrics: [...buffer].map(([name, { unit }]) => ({ Name: name, Unit: unit })) },
      ],
    },
    [DIMENSIONS.service]: SERVICE,
    ...dimensions,
  };
  for (const [name, { values }] of buffer) fields[name] = values.length === 1 ? values[0] : values;
  buffer.clear();
  return fields;
}

/** One EMF line on stdout, where Lambda's log stream (and CloudWatch's extraction) reads it. */
function writeLine(fields: EmfFields): void {
  process.stdout.write(`${JSON.stringify(fields)}\n`);
}

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
  addMetric(name, UNIT.count, value);
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
  addMetric(METRIC.requests, UNIT.count, 1);
  addMetric(METRIC.latency, UNIT.milliseconds, outcome.durationMs);
  addMetric(METRIC.serverErrors, UNIT.count, outcome.status >= 500 ? 1 : 0);
  if (outcome.replayed) countEvent(METRIC.idempotentReplays);
  else if (outcome.status < 300) countTokenEvent(outcome.operation);
  // Under the operation, and the service as a whole: the alarm on requests API Gateway answered without a function reads the total.
  const { service: _service, ...fields } = takeBuffer({ [DIMENSIONS.operation]: outcome.operation }, [
    [DIMENSIONS.service, DIMENSIONS.operation],
    [DIMENSIONS.service],
  ]);
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
    Metrics: [{ Name: METRIC.refusals, Unit: UNIT.count }],
  });
  return { ...fields, [DIMENSIONS.reason]: outcome.reason, [METRIC.refusals]: 1 };
}

/** The fields of an embedded-metric-format line. */
interface EmfFields {
  _aws: {
    Timestamp: number;
    CloudWatchMetrics: { Namespace: string; Dimensions: string[][]; Metrics: { Name: string; Unit: string }[] }[];
  };
  [field: string]: unknown;
}

/** Count one MCP `tools/call` under its tool (a name the server does not have is `unknown`: no caller-made dimension). */
export function countToolCall(tool: string | undefined): void {
  // A line of its own, at once, under the tool alone: the request's buffer stays for its own line.
  const line: EmfFields = {
    _aws: {
      Timestamp: Date.now(),
      CloudWatchMetrics: [
        {
          Namespace: METRIC_NAMESPACE,
          Dimensions: [[DIMENSIONS.service, DIMENSIONS.tool]],
          Metrics: [{ Name: METRIC.mcpToolCalls, Unit: UNIT.count }],
        },
      ],
    },
    [DIMENSIONS.service]: SERVICE,
    [DIMENSIONS.tool]: tool ?? 'unknown',
    [METRIC.mcpToolCalls]: 1,
  };
  writeLine(line);
}
