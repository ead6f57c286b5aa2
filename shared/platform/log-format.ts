/**
 * The terminal's form of the service's log lines (`LOG_FORMAT=text`; `npm start` in a terminal): a
 * Powertools Logger formatter that turns each line into one short line of text. A request reads
 * `12:03:04 POST create-session 201 4ms`, a refusal adds its reason (`... 429 RateLimited 2ms`),
 * a 5xx its error and the error's stack below it; any other line is its time, level, message and
 * fields as `key=value`. The metrics that ride on a request's JSON line (EMF) are left out: they
 * mean something to CloudWatch only. Never used in AWS, where the lines are always JSON
 * (`observability.ts`).
 */
import { Logger, LogFormatter, LogItem } from '@aws-lambda-powertools/logger';
import type { LogAttributes, UnformattedAttributes } from '@aws-lambda-powertools/logger/types';

/** A line already rendered as text; {@link ServiceLogger} writes it as it is. */
class TextLogItem extends LogItem {
  constructor(readonly text: string) {
    super({ attributes: {} });
  }
}

/** Fields of the request line that the text leaves out: those in its words already, and the metrics (EMF). */
const UNSHOWN = new Set([
  '_aws',
  'method',
  'operation',
  'status',
  'duration_ms',
  'error_name',
  'error',
  'correlation_id',
  'request_id',
  'gateway_request_id',
  'source_ip',
  'key_prefix',
  'service',
  'reason',
  'mcp_method',
  'mcp_tool',
  'tool_error_name',
]);

/** Whether a field of a request line is one of its metrics' values (EMF: a field named like a metric). */
type IsMetric = (field: string) => boolean;

/** Powertools' formatter hook: each line as one short line of text (its error's stack below it). */
export class TextLogFormatter extends LogFormatter {
  /** `requestMessages`: the messages of the request line, which reads as a request; `isMetric`: its metric fields, left out. */
  constructor(
    private readonly requestMessages: ReadonlySet<string>,
    private readonly isMetric: IsMetric,
  ) {
    super();
  }

  formatAttributes(attributes: UnformattedAttributes, fields: LogAttributes): LogItem {
    const time = attributes.timestamp.toTimeString().slice(0, 8);
    const error = fields.error instanceof Error ? fields.error : undefined;
    const words = this.requestMessages.has(attributes.message)
      ? [time, fields.method, fields.operation, fields.status, fields.error_name, ...mcpWords(fields), `${String(fields.duration_ms)}ms`]
      : [time, attributes.logLevel, attributes.message];
    const rest = Object.entries(fields)
      .filter(([, value]) => value !== undefined && value !== null && value !== '')
      .filter(([key]) => !(this.requestMessages.has(attributes.message) && (UNSHOWN.has(key) || this.isMetric(key))))
      .filter(([key]) => key !== 'error' || error === undefined)
      .map(([key, value]) => `${key}=${typeof value === 'string' ? value : JSON.stringify(value)}`);
    if (error) words.push(`${error.name}: ${error.message}`);
    const line = [...words.filter((word) => word !== undefined && word !== ''), ...rest].join(' ');
    const stack = error && attributes.logLevel === 'ERROR' ? `\n${indent(error.stack ?? '')}` : '';
    return new TextLogItem(line + stack);
  }
}

/** An MCP request's method and tool, and the tool's refusal. */
function mcpWords(fields: LogAttributes): unknown[] {
  return [fields.mcp_method, fields.mcp_tool, fields.tool_error_name];
}

function indent(stack: string): string {
  return stack
    .split('\n')
    .slice(1)
    .map((line) => `  ${line.trim()}`)
    .join('\n');
}

/**
 * Powertools Logger, which writes a line its formatter rendered as text ({@link TextLogFormatter})
 * as that text; every other line as Powertools does (JSON).
 */
export class ServiceLogger extends Logger {
  protected override printLog(logLevel: number, log: LogItem): void {
    if (!(log instanceof TextLogItem)) return super.printLog(logLevel, log);
    // WARN (16) and above to stderr, as Powertools writes them.
    (logLevel >= 16 ? process.stderr : process.stdout).write(`${log.text}\n`);
  }
}
