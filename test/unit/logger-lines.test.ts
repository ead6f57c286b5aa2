/**
 * The service writes its log lines itself (shared/platform/observability.ts; until issue 25 Powertools Logger
 * wrote them, 22 KB in every bundle): for every way the service logs, the lines are the ones
 * Powertools Logger writes, byte for byte but the timestamp, on the same stream.
 */
import { afterEach, expect, test } from '@jest/globals';
import { Logger as PowertoolsLogger } from '@aws-lambda-powertools/logger';
import { JsonLogger } from '../../shared/platform/observability.js';

type LogLevel = 'DEBUG' | 'INFO' | 'WARN' | 'SILENT';

const saved = { ...process.env };
afterEach(() => {
  process.env = { ...saved };
});

type Written = [stream: 'out' | 'err', line: string][];

/** What `log` writes to stdout and stderr, timestamps aside. */
function written(log: () => void): Written {
  const lines: Written = [];
  const { stdout, stderr } = process;
  const [out, err] = [stdout.write, stderr.write];
  stdout.write = ((chunk: string) => lines.push(['out', chunk]) > 0) as typeof stdout.write;
  stderr.write = ((chunk: string) => lines.push(['err', chunk]) > 0) as typeof stderr.write;
  try {
    log();
  } finally {
    stdout.write = out;
    stderr.write = err;
  }
  // To the minute: the two loggers write a moment apart.
  return lines.map(([stream, line]) => [stream, line.replace(/("timestamp":"[^"]*T\d\d:\d\d)[^"]*?([+-]\d\d:\d\d|Z)?"/, '$1~$2"')]);
}

class Refused extends Error {
  override name = 'Refused';
  readonly status = 429;
}

// The same errors for both loggers (a stack names where the error was made).
const cause = new TypeError('socket hang up');
const failure = Object.assign(new Error('DynamoDB failed', { cause }), { $metadata: { httpStatusCode: 500 }, code: 'X' });
const refused = new Refused('slow down');

/** A logger as the service calls it. */
type Writes = Record<'debug' | 'info' | 'warn' | 'error', (message: string, fields?: Record<string, unknown>) => void>;

/** Powertools' logger, called the way the service called it. */
function powertools(level: LogLevel): Writes {
  const logger = new PowertoolsLogger({ serviceName: 'game-session-token-service', logLevel: level });
  return {
    debug: (message, fields) => (fields ? logger.debug(message, fields) : logger.debug(message)),
    info: (message, fields) => (fields ? logger.info(message, fields) : logger.info(message)),
    warn: (message, fields) => (fields ? logger.warn(message, fields) : logger.warn(message)),
    error: (message, fields) => (fields ? logger.error(message, fields) : logger.error(message)),
  };
}

/** Every call the service makes, with fields of every kind it passes. */
function logEverything(logger: Writes): void {
  const nested: Record<string, unknown> = { a: 1, list: [1, 'two', null, undefined] };
  nested.self = nested;
  logger.info('request answered', {
    operation: 'create-session',
    status: 201,
    request_id: 'r-1',
    duration_ms: 12.5,
    source_ip: undefined,
    empty: '',
    nothing: null,
    zero: 0,
    no: false,
    big: 12n,
    nested,
    _aws: {
      Timestamp: 1,
      CloudWatchMetrics: [{ Namespace: 'N', Dimensions: [['service']], Metrics: [{ Name: 'Requests', Unit: 'Count' }] }],
    },
    Requests: 1,
  });
  logger.warn('request answered', { status: 429, error_name: 'RateLimited', error: refused });
  logger.error('request failed', { status: 500, error: failure });
  logger.error('write failed after the change took effect: audit', { error: 'not an error' });
  logger.warn('reserved', { message: 'dropped', level: 'x', service: 's', timestamp: 't', sampling_rate: 1, kept: true });
  logger.debug('a debug line', { detail: 1 });
  logger.info('no fields');
}

const cases: Readonly<Record<string, Record<string, string>>> = {
  'INFO, no X-Ray trace': { POWERTOOLS_LOG_LEVEL: 'INFO' },
  'DEBUG with an X-Ray trace': {
    POWERTOOLS_LOG_LEVEL: 'DEBUG',
    _X_AMZN_TRACE_ID: 'Root=1-5759e988-bd862e3fe1be46a994272793;Parent=557abcec3ee5a047;Sampled=1',
  },
  WARN: { POWERTOOLS_LOG_LEVEL: 'WARN' },
  SILENT: { POWERTOOLS_LOG_LEVEL: 'SILENT' },
  "Lambda's level first (ERROR over DEBUG: a warning)": { POWERTOOLS_LOG_LEVEL: 'DEBUG', AWS_LAMBDA_LOG_LEVEL: 'ERROR' },
  "Lambda's level first (DEBUG under INFO)": { POWERTOOLS_LOG_LEVEL: 'INFO', AWS_LAMBDA_LOG_LEVEL: 'DEBUG' },
  "Lambda's FATAL": { POWERTOOLS_LOG_LEVEL: 'INFO', AWS_LAMBDA_LOG_LEVEL: 'FATAL' },
  'TZ of Lambda': { POWERTOOLS_LOG_LEVEL: 'INFO', TZ: ':UTC' },
  'TZ of another zone (the local run)': { POWERTOOLS_LOG_LEVEL: 'INFO', TZ: 'Asia/Kolkata' },
};

test.each(Object.entries(cases))('the lines Powertools Logger writes: %s', (_, env) => {
  for (const name of ['AWS_LAMBDA_LOG_LEVEL', '_X_AMZN_TRACE_ID', 'POWERTOOLS_DEV', 'POWERTOOLS_LOGGER_SAMPLE_RATE', 'TZ', 'LOG_LEVEL']) {
    delete process.env[name];
  }
  Object.assign(process.env, env);
  const level = env.POWERTOOLS_LOG_LEVEL as LogLevel;
  const theirs = written(() => logEverything(powertools(level)));
  const ours = written(() => logEverything(new JsonLogger('game-session-token-service', level)));
  expect(ours).toEqual(theirs);
  if (level !== 'SILENT' && !env.AWS_LAMBDA_LOG_LEVEL?.match(/ERROR|FATAL/)) expect(ours.length).toBeGreaterThan(4);
});

test('a timestamp is the time of the line, in UTC', () => {
  delete process.env.TZ;
  const lines: string[] = [];
  const out = process.stdout.write;
  process.stdout.write = ((chunk: string) => lines.push(chunk) > 0) as typeof process.stdout.write;
  try {
    new JsonLogger('s', 'INFO').info('now');
  } finally {
    process.stdout.write = out;
  }
  const { timestamp } = JSON.parse(lines[0]!) as { timestamp: string };
  expect(timestamp).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
  expect(Math.abs(Date.parse(timestamp) - Date.now())).toBeLessThan(60_000);
});
