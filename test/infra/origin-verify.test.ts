/**
 * The origin guard: with `ORIGIN_VERIFY_SECRET_ARN` set (in AWS), only requests carrying the secret
 * header CloudFront adds get past the bundle; without it (locally) the guard is off. The secret is
 * read through the Parameters and Secrets extension's localhost API, faked here by an HTTP server.
 */
import { afterAll, beforeAll, describe, expect, test } from '@jest/globals';
import type { APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2, Context } from 'aws-lambda';
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { apiGatewayEvent } from '../../infra/local/api-event.js';
import type { CallContext } from '../../shared/platform/call.js';
import { resetEnv, tableEnv } from '../../shared/platform/env.js';
import { VIEWER_ADDRESS_HEADER, errorResponse } from '../../shared/platform/http/answers.js';
import {
  loadFromExtension,
  ORIGIN_VERIFY_HEADER,
  originVerify,
  PREVIOUS_ACCEPTED_MS,
  type OriginVerifyOptions,
  type SecretValuesLoader,
} from '../../shared/platform/secrets.js';
import { stopAll } from '../support/teardown.js';

const SECRET_ARN = 'arn:aws:secretsmanager:eu-west-1:123456789012:secret:origin-verify-AbCdEf';
const CURRENT = 'current-value-0123456789abcdef';
const PREVIOUS = 'previous-value-0123456789abcdef';

function event(headers: Record<string, string> = {}, query?: Record<string, string>): APIGatewayProxyEventV2 {
  const path = '/api/org-api-keys/validate-session';
  const search = new URLSearchParams(query).toString();
  return apiGatewayEvent({
    method: 'GET',
    path,
    query: search,
    headers,
    routeKey: `GET ${path}`,
    sourceIp: '198.51.100.7',
    requestId: 'req-1',
  });
}

/** Run the middleware's before hook; the status the bundle would answer (200 = let through). */
async function statusOf(options: OriginVerifyOptions, headers: Record<string, string>): Promise<number> {
  const middleware = originVerify(options);
  try {
    await middleware.before!({ event: event(headers), context: {} as Context, response: undefined, error: undefined, internal: {} });
    return 200;
  } catch (error) {
    return errorResponse(error).statusCode!;
  }
}

describe('the middleware', () => {
  const configured = (load: SecretValuesLoader = async () => [CURRENT], now = () => 0): OriginVerifyOptions => ({
    secretId: () => SECRET_ARN,
    load,
    now,
  });

  test('unconfigured (the local run): every request passes and no secret is read', async () => {
    let loads = 0;
    const options = { secretId: () => undefined, load: async () => (loads++, [CURRENT]) };
    expect(await statusOf(options, {})).toBe(200);
    expect(loads).toBe(0);
  });

  test('configured: without the header, or with a wrong one, 403; with the secret, through', async () => {
    expect(await statusOf(configured(), {})).toBe(403);
    expect(await statusOf(configured(), { [ORIGIN_VERIFY_HEADER]: 'guess' })).toBe(403);
    expect(await statusOf(configured(), { [ORIGIN_VERIFY_HEADER]: `${CURRENT}x` })).toBe(403);
    expect(await statusOf(configured(), { [ORIGIN_VERIFY_HEADER]: CURRENT })).toBe(200);
  });

  test('during a rotation the previous value still passes', async () => {
    const options = configured(async () => [CURRENT, PREVIOUS]);
    expect(await statusOf(options, { [ORIGIN_VERIFY_HEADER]: PREVIOUS })).toBe(200);
  });

  test('the secret is read once per container and period; a mismatch re-reads it at most every 30 s', async () => {
    let clock = 0;
    let value = CURRENT;
    let loads = 0;
    const middleware = originVerify({ secretId: () => SECRET_ARN, load: async () => (loads++, [value]), now: () => clock });
    const run = async (header: string) => {
      try {
        await middleware.before!({
          event: event({ [ORIGIN_VERIFY_HEADER]: header }),
          context: {} as Context,
          response: undefined,
          error: undefined,
          internal: {},
        });
        return 200;
      } catch (error) {
        return errorResponse(error).statusCode!;
      }
    };
    expect(await run(CURRENT)).toBe(200);
    expect(await run(CURRENT)).toBe(200);
    expect(loads).toBe(1);
    value = 'rotated-value';
    clock += 10_000;
    expect(await run('rotated-value')).toBe(403); // too soon to re-read: an attacker cannot make it read on every request
    expect(loads).toBe(1);
    clock += 30_000;
    expect(await run('rotated-value')).toBe(200);
    expect(loads).toBe(2);
    clock += 5 * 60_000 + 1;
    expect(await run('rotated-value')).toBe(200);
    expect(loads).toBe(3);
  });
});

describe('through the Parameters and Secrets extension', () => {
  let server: Server;
  const seen: IncomingMessage[] = [];
  let previousAvailable = true;
  let failCurrent = false;
  /** When the current version was created, in Secrets Manager's epoch seconds (absent: not said). */
  let currentCreated: number | undefined = Date.now() / 1000;
  const saved = { ...process.env };

  beforeAll(async () => {
    server = createServer((req, res) => {
      seen.push(req);
      const url = new URL(req.url ?? '/', 'http://localhost');
      const stage = url.searchParams.get('versionStage');
      const authorized = req.headers['x-aws-parameters-secrets-token'] === 'session-token';
      const ok = authorized && url.pathname === '/secretsmanager/get' && url.searchParams.get('secretId') === SECRET_ARN;
      if (!ok || (stage === 'AWSPREVIOUS' && !previousAvailable) || (stage === 'AWSCURRENT' && failCurrent)) {
        res.writeHead(400).end('{}');
        return;
      }
      res
        .writeHead(200, { 'content-type': 'application/json' })
        .end(
          JSON.stringify(
            stage === 'AWSPREVIOUS' ? { SecretString: PREVIOUS, CreatedDate: 0 } : { SecretString: CURRENT, CreatedDate: currentCreated },
          ),
        );
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    Object.assign(process.env, {
      PARAMETERS_SECRETS_EXTENSION_HTTP_PORT: String((server.address() as AddressInfo).port),
      AWS_SESSION_TOKEN: 'session-token',
    });
  });
  afterAll(() =>
    stopAll(
      () => {
        process.env = saved;
        resetEnv();
      },
      () => server && new Promise<void>((resolve) => server.close(() => resolve())),
    ),
  );

  test('reads the current and the previous value with the function’s session token', async () => {
    previousAvailable = true;
    expect(await loadFromExtension(SECRET_ARN)).toEqual([CURRENT, PREVIOUS]);
    expect(seen.at(-1)!.headers['x-aws-parameters-secrets-token']).toBe('session-token');
  });

  test('the previous value only for a bounded window after the rotation, and never when the rotation time is unknown', async () => {
    previousAvailable = true;
    currentCreated = (Date.now() - PREVIOUS_ACCEPTED_MS + 60_000) / 1000;
    expect(await loadFromExtension(SECRET_ARN)).toEqual([CURRENT, PREVIOUS]);
    currentCreated = (Date.now() - PREVIOUS_ACCEPTED_MS - 60_000) / 1000;
    expect(await loadFromExtension(SECRET_ARN)).toEqual([CURRENT]);
    currentCreated = undefined;
    expect(await loadFromExtension(SECRET_ARN)).toEqual([CURRENT]);
    currentCreated = Date.now() / 1000;
  });

  test('no previous version (never rotated): the current value alone', async () => {
    previousAvailable = false;
    expect(await loadFromExtension(SECRET_ARN)).toEqual([CURRENT]);
  });

  test('the current value cannot be read: the request fails closed (500), it is not let through', async () => {
    failCurrent = true;
    await expect(loadFromExtension(SECRET_ARN)).rejects.toThrow(/HTTP 400/);
    const status = await statusOf({ secretId: () => SECRET_ARN }, { [ORIGIN_VERIFY_HEADER]: CURRENT });
    expect(status).toBe(500);
    failCurrent = false;
  });

  test('a deployed handler: 403 envelope without the header, the operation itself with it', async () => {
    Object.assign(process.env, {
      ...tableEnv((_, t) => `test-${t.id}`),
      ORIGIN_VERIFY_SECRET_ARN: SECRET_ARN,
      DYNAMODB_ENDPOINT: 'http://127.0.0.1:9',
    });
    resetEnv();
    const { handler } = await import('../../functions/validate-session.js');
    const call = (e: APIGatewayProxyEventV2) =>
      (handler as (event: APIGatewayProxyEventV2, context: Context) => Promise<APIGatewayProxyStructuredResultV2>)(e, {} as Context);

    // The request log line is captured: on-call's queries read `$.message`, `$.status` and the reason from it.
    const [refused, lines] = await capturingStdout(() => call(event({}, { token: 'not-a-uuid' })));
    const logged = lines
      .flatMap((l) => l.split('\n'))
      .filter((l) => l.startsWith('{'))
      .map((l) => JSON.parse(l) as Record<string, unknown>);
    expect(logged).toContainEqual(
      // A refusal that may be a probe (calling the API around CloudFront) is WARN, with its reason.
      expect.objectContaining({ level: 'WARN', message: 'request', operation: 'validate-session', status: 403, error_name: 'Forbidden' }),
    );
    expect(refused.statusCode).toBe(403);
    expect(JSON.parse(refused.body!)).toEqual({
      success: false,
      error: expect.stringMatching(/public endpoint/),
      code: 'forbidden',
      request_id: refused.headers!['x-request-id'],
    });

    // Past the guard, the operation answers for itself: a malformed token is its 400, before any read.
    const [passed] = await capturingStdout(() => call(event({ [ORIGIN_VERIFY_HEADER]: CURRENT }, { token: 'not-a-uuid' })));
    expect(passed.statusCode).toBe(400);
  });
});

/** Run `fn` with stdout and stderr captured (the function's log lines: WARN and ERROR go to stderr). */
async function capturingStdout<T>(fn: () => Promise<T>): Promise<[T, string[]]> {
  const lines: string[] = [];
  const writes = [process.stdout.write.bind(process.stdout), process.stderr.write.bind(process.stderr)] as const;
  const capture = ((chunk: string | Uint8Array) => (lines.push(String(chunk)), true)) as typeof process.stdout.write;
  process.stdout.write = capture;
  process.stderr.write = capture;
  try {
    return [await fn(), lines];
  } finally {
    [process.stdout.write, process.stderr.write] = writes;
  }
}

describe('the caller’s address', () => {
  const through = async (options: OriginVerifyOptions, headers: Record<string, string>) => {
    const context = { call: { requestId: 'req-1', sourceIp: '198.51.100.7', userAgent: 'test' } } as Context & { call: CallContext };
    await originVerify(options).before!({ event: event(headers), context, response: undefined, error: undefined, internal: {} });
    return context.call.sourceIp;
  };
  const viewer = { [VIEWER_ADDRESS_HEADER]: '203.0.113.9' };

  test('behind the origin check, the viewer address the edge reports (IPv4, IPv6, a port dropped)', async () => {
    const options = { secretId: () => SECRET_ARN, load: async () => [CURRENT] };
    expect(await through(options, { [ORIGIN_VERIFY_HEADER]: CURRENT, ...viewer })).toBe('203.0.113.9');
    expect(await through(options, { [ORIGIN_VERIFY_HEADER]: CURRENT, [VIEWER_ADDRESS_HEADER]: '2001:db8::7' })).toBe('2001:db8::7');
    expect(await through(options, { [ORIGIN_VERIFY_HEADER]: CURRENT, [VIEWER_ADDRESS_HEADER]: '203.0.113.9:443' })).toBe('203.0.113.9');
    // Not an address: the socket's stays.
    expect(await through(options, { [ORIGIN_VERIFY_HEADER]: CURRENT, [VIEWER_ADDRESS_HEADER]: 'forged:1' })).toBe('198.51.100.7');
  });

  test('with the check off (locally), the header is not trusted: the socket address', async () => {
    expect(await through({ secretId: () => undefined }, viewer)).toBe('198.51.100.7');
  });
});
