/**
 * The lines on-call reads (shared/platform/observability.ts, written by Powertools Logger): the
 * request line's fields, in order, its level and stream by outcome, the error of a 5xx, the
 * correlation id of the lines a request writes; and the terminal's text form of the same lines
 * (shared/platform/log-format.ts).
 */
import { afterEach, describe, expect, test } from '@jest/globals';
import type { CallContext } from '../../shared/platform/call.js';
import { ServiceLogger, TextLogFormatter } from '../../shared/platform/log-format.js';
import { beginRequest, logger, logRequest, METRIC, type AnsweredRequest } from '../../shared/platform/observability.js';
import { RateLimited } from '../../shared/platform/errors.js';

const saved = { ...process.env };
afterEach(() => {
  process.env = { ...saved };
});

type Written = [stream: 'out' | 'err', line: string][];

/** What `log` writes to stdout and stderr. */
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
  return lines;
}

const call: CallContext = { requestId: 'partner-1', gatewayRequestId: 'gw-1', sourceIp: '203.0.113.9', userAgent: 'curl' };

/** A request as the HTTP bundle reports it. */
function answered(status: number, error?: unknown): AnsweredRequest {
  return {
    operation: 'create-session',
    method: 'POST',
    status,
    requestId: 'partner-1',
    durationMs: 4,
    call,
    error,
    replayed: false,
    fields: { key_prefix: 'dpk_abcd', actor: undefined },
  };
}

type Parsed = [stream: 'out' | 'err', line: Record<string, unknown>];
const parsed = (lines: Written): Parsed[] => lines.map(([stream, line]) => [stream, JSON.parse(line) as Record<string, unknown>]);

describe('the request line (JSON, as in AWS)', () => {
  test('a success: INFO on stdout; the standard fields, then the request, then its metrics', () => {
    const [stream, line] = parsed(written(() => logRequest(answered(201))))[0]!;
    expect(stream).toBe('out');
    expect(Object.keys(line!)).toEqual([
      'level',
      'message',
      'timestamp',
      'service',
      'sampling_rate',
      'operation',
      'method',
      'status',
      'request_id',
      'duration_ms',
      'gateway_request_id',
      'source_ip',
      'key_prefix',
      '_aws',
      METRIC.requests,
      METRIC.latency,
      METRIC.serverErrors,
      METRIC.tokensMinted,
    ]);
    expect(line).toMatchObject({
      level: 'INFO',
      message: 'request',
      service: 'game-session-token-service',
      operation: 'create-session',
      method: 'POST',
      status: 201,
      request_id: 'partner-1',
      gateway_request_id: 'gw-1',
      key_prefix: 'dpk_abcd',
      duration_ms: 4,
    });
    expect(Date.parse(line!.timestamp as string)).toBeGreaterThan(Date.now() - 60_000);
  });

  test('401, 403 and 429 are WARN on stderr with the refusal’s reason; another 4xx is INFO', () => {
    const lines = parsed(
      written(() => {
        logRequest(answered(429, new RateLimited('minute', 7)));
        logRequest(answered(401));
        logRequest(answered(403));
        logRequest(answered(404));
      }),
    );
    expect(lines.map(([stream, l]) => [stream, l.level, l.status, l.error_name])).toEqual([
      ['err', 'WARN', 429, 'RateLimited'],
      ['err', 'WARN', 401, 'Http401'],
      ['err', 'WARN', 403, 'Http403'],
      ['out', 'INFO', 404, 'Http404'],
    ]);
    expect(lines[0]![1]).toMatchObject({
      error_message: expect.stringMatching(/^Rate limit exceeded/),
      reason: 'RateLimited',
      [METRIC.refusals]: 1,
    });
  });

  test('a 5xx is ERROR on stderr, "request failed", with its error: name, location, message, stack, cause', () => {
    const failure = new Error('DynamoDB failed', { cause: new TypeError('socket hang up') });
    const [stream, line] = parsed(written(() => logRequest(answered(500, failure))))[0]!;
    expect(stream).toBe('err');
    expect(line).toMatchObject({
      level: 'ERROR',
      message: 'request failed',
      status: 500,
      error: {
        name: 'Error',
        location: expect.stringMatching(/logger-lines\.test\.ts:\d+$/),
        message: 'DynamoDB failed',
        stack: expect.stringContaining('DynamoDB failed'),
        cause: { name: 'TypeError', message: 'socket hang up' },
      },
    });
    expect(line!.error_name).toBeUndefined();
  });

  test('the lines a request writes carry its id as correlation_id; its own line names it request_id; the next line neither', () => {
    const lines = parsed(
      written(() => {
        beginRequest('partner-1');
        logger.warn('write failed after the change took effect: audit', { table: 'audit' });
        logRequest(answered(200));
        logger.info('after the request');
      }),
    );
    expect(lines.map(([, l]) => [l.message, l.correlation_id, l.request_id])).toEqual([
      ['write failed after the change took effect: audit', 'partner-1', undefined],
      ['request', undefined, 'partner-1'],
      ['after the request', undefined, undefined],
    ]);
  });
});

describe('levels', () => {
  test("Lambda's level comes first (AWS_LAMBDA_LOG_LEVEL, set by the stack from POWERTOOLS_LOG_LEVEL)", () => {
    process.env.AWS_LAMBDA_LOG_LEVEL = 'ERROR';
    const lines = written(() => {
      const strict = new ServiceLogger({ serviceName: 's', logLevel: 'INFO' });
      strict.info('dropped');
      strict.error('kept');
    });
    const messages = lines.map(([, l]) => (JSON.parse(l) as { message: string }).message);
    expect(messages).toContain('kept');
    expect(messages).not.toContain('dropped');
  });
});

describe('text (LOG_FORMAT=text off Lambda; npm start in a terminal)', () => {
  const text = () =>
    new ServiceLogger({
      serviceName: 'game-session-token-service',
      logLevel: 'INFO',
      logFormatter: new TextLogFormatter(new Set(['request', 'request failed']), (field) => /^[A-Z]/.test(field)),
    });
  const TIME = /^\d\d:\d\d:\d\d /;
  const requestFields = { operation: 'create-session', method: 'POST', request_id: 'r-1', source_ip: '::1', _aws: {}, Requests: 1 };

  test('a request is one short line: time, method, operation, status, the refusal’s reason, duration', () => {
    const log = text();
    const lines = written(() => {
      log.info('request', { ...requestFields, status: 201, duration_ms: 4, org_id: 1 });
      log.warn('request', {
        ...requestFields,
        status: 429,
        duration_ms: 2,
        error_name: 'RateLimited',
        error_message: 'Rate limit exceeded',
      });
      log.info('request', {
        ...requestFields,
        operation: 'mcp',
        status: 200,
        duration_ms: 5,
        mcp_method: 'tools/call',
        mcp_tool: 'create_session',
      });
    });
    expect(lines.map(([stream, line]) => [stream, line.replace(TIME, 'T ')])).toEqual([
      ['out', 'T POST create-session 201 4ms org_id=1\n'],
      ['err', 'T POST create-session 429 RateLimited 2ms error_message=Rate limit exceeded\n'],
      ['out', 'T POST mcp 200 tools/call create_session 5ms\n'],
    ]);
  });

  test('a 5xx names its error, its stack below; any other line is time, level, message and fields', () => {
    const log = text();
    const lines = written(() => {
      log.error('request failed', { ...requestFields, status: 500, duration_ms: 9, error: new Error('boom') });
      log.warn('write failed', { table: 'audit', detail: { a: 1 } });
    });
    const [failed, warned] = lines.map(([, line]) => line);
    expect(failed).toMatch(/^\d\d:\d\d:\d\d POST create-session 500 9ms Error: boom\n {2}at /);
    expect(failed!.trim().split('\n').length).toBeGreaterThan(1);
    expect(warned).toMatch(/^\d\d:\d\d:\d\d WARN write failed table=audit detail=\{"a":1\}\n$/);
  });
});
