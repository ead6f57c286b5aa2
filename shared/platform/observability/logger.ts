import { loggingEnv } from '../env.js';

/** Name and level from the parsed environment (Lambda's own log level, when set, still comes first). */
const settings = loggingEnv();

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

export const logger = new JsonLogger(settings.POWERTOOLS_SERVICE_NAME, settings.POWERTOOLS_LOG_LEVEL);
