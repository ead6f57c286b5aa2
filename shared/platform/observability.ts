/**
 * What on-call reads, in three parts: the service's JSON log lines (the logger), its metrics
 * (CloudWatch embedded metric format, EMF) and the line every request ends with, which carries both.
 *
 * Metrics are EMF lines: CloudWatch extracts them from the function's log stream, so a metric costs
 * no API call and no time in the request. Both the logger and the metrics are written here, not by
 * Powertools (until issue 25), in the same form, without their 32 KB in every bundle (BENCHMARKS.md,
 * "Bundles and cold starts"). The metrics' names and dimensions are constants: the functions write
 * them, and the dashboard and alarms read them (`infra/monitoring.ts`, `infra/dashboard.ts`), so
 * that renaming a metric cannot silently blind an alarm. What happens during a request (a DynamoDB
 * retry, a token minted) is added to the container's buffer and published on the request's own log
 * line ({@link requestMetrics}), under the request's operation. Lambda runs one request per
 * container at a time, so the buffer is the request's; the local run serves requests concurrently
 * in one process, where a retry may be published under a neighbour's operation (the counts stay right).
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
import type { CallContext } from './call.js';
import { loggingEnv } from './env.js';
import { namedError } from './http/named-error.js';

/**
 * Name and level from the parsed environment (Lambda's own log level, when set, still comes first).
 * The name is also the metrics' `service` dimension.
 */
const { POWERTOOLS_SERVICE_NAME: SERVICE, POWERTOOLS_LOG_LEVEL } = loggingEnv();

// === The logger

/**
 * The levels and their order, as Powertools Logger numbers them (Lambda's FATAL is CRITICAL here).
 * SILENT writes nothing.
 */
const THRESHOLD = { TRACE: 6, DEBUG: 8, INFO: 12, WARN: 16, ERROR: 20, CRITICAL: 24, SILENT: 28 } as const;
type Level = keyof typeof THRESHOLD;

function isLevel(name: string | undefined): name is Level {
  return name !== undefined && Object.hasOwn(THRESHOLD, name);
}

/** The lines' attributes a caller may not set: a field of theirs by these names is dropped (with a warning). */
const RESERVED = ['level', 'message', 'sampling_rate', 'service', 'timestamp'];

/**
 * The service's structured JSON logger. One line per request is written by the HTTP bundle;
 * nothing logs raw keys, whole tokens or bearer tokens (a key shows as its first 8 characters).
 *
 * Its lines are those Powertools Logger wrote until issue 25 (`test/unit/logger-lines.test.ts`
 * compares them), without its 22 KB in every bundle (BENCHMARKS.md, "Bundles and cold starts"):
 * `level`, `message`, `timestamp`, `service`, `sampling_rate` (0), `xray_trace_id`, then the
 * caller's fields; top-level fields that are undefined, null or empty are left out; errors are
 * written as `{ name, location, message, stack, cause, ... }`; INFO and DEBUG to stdout, WARN and
 * ERROR to stderr. The level is Lambda's (`AWS_LAMBDA_LOG_LEVEL`, set by the stack from
 * `POWERTOOLS_LOG_LEVEL`: infra/functions.ts) when there is one, else `POWERTOOLS_LOG_LEVEL`. What
 * Powertools also offered and the service never configured (sampling to DEBUG, log buffering,
 * `POWERTOOLS_DEV` pretty printing, the Lambda context's fields) is not here.
 */
export class JsonLogger {
  private readonly threshold: number;

  constructor(
    private readonly service: string,
    level: Level,
  ) {
    const lambdaLevel = process.env.AWS_LAMBDA_LOG_LEVEL?.trim();
    const alc = lambdaLevel === 'FATAL' ? 'CRITICAL' : lambdaLevel;
    this.threshold = THRESHOLD[isLevel(alc) ? alc : level];
    if (isLevel(alc) && THRESHOLD[alc] > THRESHOLD[level]) {
      this.warn(
        `Current log level (${level}) does not match AWS Lambda Advanced Logging Controls minimum log level (${alc}). This can lead to data loss, consider adjusting them.`,
      );
    }
  }

  debug(message: string, fields?: Readonly<Record<string, unknown>>): void {
    this.write('DEBUG', message, fields);
  }

  info(message: string, fields?: Readonly<Record<string, unknown>>): void {
    this.write('INFO', message, fields);
  }

  warn(message: string, fields?: Readonly<Record<string, unknown>>): void {
    this.write('WARN', message, fields);
  }

  error(message: string, fields?: Readonly<Record<string, unknown>>): void {
    this.write('ERROR', message, fields);
  }

  private write(level: Level, message: string, fields: Readonly<Record<string, unknown>> = {}): void {
    if (THRESHOLD[level] < this.threshold) return;
    const attributes: Record<string, unknown> = {
      level,
      message,
      timestamp: timestamp(new Date()),
      service: this.service,
      sampling_rate: 0,
      xray_trace_id: xrayTraceId(),
    };
    for (const [key, value] of Object.entries(fields)) {
      if (RESERVED.includes(key)) this.warn(`The key "${key}" is a reserved key and will be dropped.`);
      else attributes[key] = value;
    }
    for (const key of Object.keys(attributes)) {
      const value = attributes[key];
      if (value === undefined || value === null || value === '') delete attributes[key];
    }
    const stream = level === 'INFO' || level === 'DEBUG' ? process.stdout : process.stderr;
    stream.write(`${JSON.stringify(attributes, jsonReplacer())}\n`);
  }
}

/** Errors as objects, bigints as strings, and a value inside itself left out. */
function jsonReplacer(): (this: unknown, key: string, value: unknown) => unknown {
  const ancestors: unknown[] = [];
  return function (this: unknown, _key: string, value: unknown): unknown {
    const replaced = value instanceof Error ? formatError(value) : value;
    if (typeof replaced === 'bigint') return replaced.toString();
    if (typeof replaced === 'object' && replaced !== null) {
      while (ancestors.length > 0 && ancestors.at(-1) !== this) ancestors.pop();
      if (ancestors.includes(replaced)) return undefined;
      ancestors.push(replaced);
    }
    return replaced;
  };
}

/** An error as a line shows it: its name, where it was thrown, message, stack, cause and own fields. */
function formatError(error: Error): Record<string, unknown> {
  const { name, message, stack, cause, ...own } = error as Error & Record<string, unknown>;
  const formatted: Record<string, unknown> = {
    name,
    location: codeLocation(stack),
    message,
    stack,
    cause: cause instanceof Error ? formatError(cause) : cause,
  };
  for (const key in error) if (!['name', 'message', 'stack', 'cause'].includes(key)) formatted[key] = own[key];
  return formatted;
}

/** `file:line` of the stack's first frame. */
function codeLocation(stack: string | undefined): string {
  for (const line of stack?.split('\n') ?? []) {
    const match = /\(([^()]*?):(\d+?):(\d+?)\)\\?$/.exec(line);
    if (match) return `${match[1]}:${Number(match[2])}`;
  }
  return '';
}

/** ISO 8601 in UTC (Lambda's `TZ` is `:UTC`), or with the offset of a `TZ` that names another zone. */
function timestamp(now: Date): string {
  const zone = process.env.TZ?.trim();
  if (!zone || zone.includes('UTC')) return now.toISOString();
  let resolved = 'UTC';
  try {
    new Intl.DateTimeFormat('en', { timeZone: zone });
    resolved = zone;
  } catch {
    // An unknown zone: UTC.
  }
  const parts = Object.fromEntries(
    new Intl.DateTimeFormat('en', {
      hourCycle: 'h23',
      year: 'numeric',
      month: '2-digit',
      day: '2-digit',
      hour: '2-digit',
      minute: '2-digit',
      second: '2-digit',
      timeZone: resolved,
    })
      .formatToParts(now)
      .map((part) => [part.type, part.value]),
  );
  const offset = resolved === zone ? -now.getTimezoneOffset() : 0;
  const hours = Math.abs(Math.floor(offset / 60))
    .toString()
    .padStart(2, '0');
  const minutes = Math.abs(offset % 60)
    .toString()
    .padStart(2, '0');
  const millis = now.getMilliseconds().toString().padStart(3, '0');
  return `${parts.year}-${parts.month}-${parts.day}T${parts.hour}:${parts.minute}:${parts.second}.${millis}${offset >= 0 ? '+' : '-'}${hours}:${minutes}`;
}

/** The X-Ray trace's root id of the current invocation (the runtime's store, else `_X_AMZN_TRACE_ID`), if any. */
function xrayTraceId(): string | undefined {
  const runtime = (globalThis as { awslambda?: { InvokeStore?: { getXRayTraceId(): string | undefined } } }).awslambda;
  const trace = runtime?.InvokeStore?.getXRayTraceId() ?? process.env._X_AMZN_TRACE_ID?.trim() ?? '';
  if (trace === '') return undefined;
  if (!trace.includes('=')) return trace;
  return Object.fromEntries(trace.split(';').map((field) => field.split('=')))['Root'];
}

/** The service's logger. Pure: a bundle that never logs (a worker that only counts) drops it. */
export const logger = /* @__PURE__ */ new JsonLogger(SERVICE, POWERTOOLS_LOG_LEVEL);

// === Metrics

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

// --- Writing them

/** The units the service's metrics use (CloudWatch's names). */
const UNIT = { count: 'Count', milliseconds: 'Milliseconds' } as const;
type Unit = (typeof UNIT)[keyof typeof UNIT];

/** EMF allows at most 100 values per metric on a line: a metric reaching it is written at once. */
const MAX_VALUES = 100;

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
    ...emfHead(
      sets,
      [...buffer].map(([name, { unit }]) => ({ Name: name, Unit: unit })),
    ),
    ...dimensions,
  };
  for (const [name, { values }] of buffer) fields[name] = values.length === 1 ? values[0] : values;
  buffer.clear();
  return fields;
}

/** An EMF line's first fields: one directive (the `metrics` under the dimension `sets`) and the `service`. */
function emfHead(sets: string[][], metrics: { Name: string; Unit: string }[]): EmfFields {
  return {
    _aws: { Timestamp: Date.now(), CloudWatchMetrics: [{ Namespace: METRIC_NAMESPACE, Dimensions: sets, Metrics: metrics }] },
    [DIMENSIONS.service]: SERVICE,
  };
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
 * The request's metrics, as the embedded-metric-format fields of its log line (below):
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
  writeLine({
    ...emfHead([[DIMENSIONS.service, DIMENSIONS.tool]], [{ Name: METRIC.mcpToolCalls, Unit: UNIT.count }]),
    [DIMENSIONS.tool]: tool ?? 'unknown',
    [METRIC.mcpToolCalls]: 1,
  });
}

/**
 * A worker's metrics, on a line of their own under the service alone (a worker has no request
 * line to carry them, and its own line leaves the current request's buffer alone in the local run,
 * where workers and requests share the process): `counts` once each, `timings` (milliseconds) as
 * values. Nothing is written when there is nothing to say.
 */
export function writeWorkerMetrics(
  counts: Partial<Record<MetricName, number>>,
  timings: Partial<Record<MetricName, readonly number[]>> = {},
): void {
  const metrics: [MetricName, Unit, number | number[]][] = [
    ...Object.entries(counts).map(([name, value]): [MetricName, Unit, number] => [name as MetricName, UNIT.count, value]),
    ...Object.entries(timings)
      .filter(([, values]) => values.length > 0)
      // EMF takes at most 100 values of a metric on a line: a longer series keeps its latest 100.
      .map(([name, values]): [MetricName, Unit, number[]] => [name as MetricName, UNIT.milliseconds, values.slice(-MAX_VALUES)]),
  ];
  if (metrics.length === 0) return;
  const line = emfHead(
    [[DIMENSIONS.service]],
    metrics.map(([Name, Unit]) => ({ Name, Unit })),
  );
  for (const [name, , value] of metrics) line[name] = Array.isArray(value) && value.length === 1 ? value[0] : value;
  writeLine(line);
}

// === The request's line

/** A request answered below 500 (INFO; WARN for 401, 403, 429), with its operation, status, request id and duration. */
export const REQUEST_ANSWERED = 'request';
/** A request answered 5xx (ERROR), with the same fields and the error. */
const REQUEST_FAILED = 'request failed';

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

/** Write a request's line, which also carries its metrics. */
export function logRequest(request: AnsweredRequest): void {
  const { status } = request;
  const refused = status >= 400 && status < 500;
  const named = refused ? namedError(request.error) : undefined;
  const reason = refused ? (named?.name ?? `Http${status}`) : undefined;
  const annotated = request.call ? annotations.get(request.call) : undefined;
  const fields = {
    operation: request.operation,
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
  if (status >= 500) logger.error(REQUEST_FAILED, { ...line, error: (request.error as Error | undefined) ?? undefined });
  else if (WARNED.has(status)) logger.warn(REQUEST_ANSWERED, line);
  else logger.info(REQUEST_ANSWERED, line);
}
