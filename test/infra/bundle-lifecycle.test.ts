/**
 * The deployed bundles against a real DynamoDB: the session lifecycle (create, validate, consume,
 * consume again, revoke, refused key) run by the `create-session`, `validate-session`,
 * `consume-session` and `revoke-session` bundles exactly as CDK builds them, against an embedded
 * DynamoDB (dynalite) seeded by the local run's own helpers.
 *
 * What only the bundles can break, and what this proves they do not:
 * - They are minified without `keepNames`: class and function names are mangled, so anything that
 *   recognizes an error by a constructor's name would fail silently. The SDK's
 *   `ConditionalCheckFailedException` must still be told apart by its `name` from the wire (a second
 *   consume, a consume or a revoke of a revoked token: 410), and domain errors by theirs (401, 410).
 * - esbuild aliases swap parts of the SDK and Node for stand-ins (`shared/bundle/`): the credential
 *   chain for the environment alone, `node:http` for the built-in module without an ES namespace,
 *   the SDK's event-stream support for nothing. The clients below are built and call DynamoDB with
 *   them in place; in the `lambda` configuration the credentials come from the stand-in.
 * - The conditional writes are real ones, evaluated by the store, not by a fake.
 *
 * The bundles run in a child Node process per configuration, as a Lambda container would, each
 * handler given API Gateway HTTP API (payload v2) events built as the local front builds them:
 * - `lambda`: the environment of a deployed function (no `DYNAMODB_ENDPOINT`: the client AWS
 *   uses, with its request timeouts, region from `AWS_REGION` and credentials from the
 *   environment through the stand-in), pointed at dynalite by the SDK's standard
 *   `AWS_ENDPOINT_URL_DYNAMODB`.
 * - `local`: `DYNAMODB_ENDPOINT` set, the client of the local run (fixed local credentials).
 * A recording proxy between the bundles and dynalite shows what each call really sent and got: the
 * credentials and region it was signed with, and the conditional failures the 410s came from.
 */
import { afterAll, beforeAll, describe, expect, test } from '@jest/globals';
import { build } from 'esbuild';
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer, request, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { functionCode } from '../../infra/functions.js';
import { ensureTables, startEmbeddedDynamo, type EmbeddedDynamo } from '../../infra/local/dynamo.js';
import { DEMO_PLAYABLES, ensureDemoKey, seedCatalog } from '../../infra/local/seed.js';
import { generateRawKey } from '../../shared/domain/api-keys.js';
import { resetEnv } from '../../shared/env.js';
import { API_PATH, matchRoute, originPath } from '../../shared/routes.js';
import { overrideServices, services } from '../../shared/services.js';
import { tables, type TableName } from '../../shared/tables.js';
import { cdkEsbuildOptions } from '../bench/cold-start.js';

/** The operations of the lifecycle; each is served by the function of the same name. */
const OPERATIONS = ['create-session', 'validate-session', 'consume-session', 'revoke-session'] as const;
type Operation = (typeof OPERATIONS)[number];

/** Physical table names unlike the logical ones: the bundles must take them from the environment. */
const tableNames = Object.fromEntries(Object.keys(tables).map((name) => [name, `lifecycle-${name}`])) as Record<TableName, string>;
const tableEnv = Object.fromEntries(Object.entries(tables).map(([name, def]) => [def.envVar, tableNames[name as TableName]]));

/** The function's credentials in the `lambda` configuration (Lambda puts the role's in the environment). */
const LAMBDA_CREDENTIALS = {
  AWS_ACCESS_KEY_ID: 'ASIALIFECYCLETEST',
  AWS_SECRET_ACCESS_KEY: 'lifecycle-secret',
  AWS_SESSION_TOKEN: 'lifecycle-token',
};
const REGION = 'eu-west-1';

/** A session token (a UUID). */
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
const GONE = { success: false, error: 'Session is invalid, already consumed, or expired' };

/** One DynamoDB call a bundle made, as the proxy saw it. */
interface DynamoCall {
  readonly operation: string;
  readonly table: string | undefined;
  readonly accessKeyId: string | undefined;
  readonly region: string | undefined;
  readonly sessionToken: string | undefined;
  readonly status: number;
  /** The error type DynamoDB answered (`ConditionalCheckFailedException`), if any. */
  readonly error: string | undefined;
}

/** One handler's answer, as the child reports it. */
interface Reply {
  readonly status: number;
  readonly headers: Record<string, string>;
  readonly body: any;
}

let root: string;
let dynamo: EmbeddedDynamo | undefined;
let proxy: Server | undefined;
let proxyEndpoint: string;
const calls: DynamoCall[] = [];
const bundles: Record<string, string> = {};
let apiKey: string;
/** A game of the key's org (acme) that requires a token. */
const game = DEMO_PLAYABLES.find((p) => p.kind === 'game' && p.org_id === 1 && p.require_session_token)!;
/** A stream of the same org. */
const stream = DEMO_PLAYABLES.find((p) => p.kind === 'stream' && p.org_id === 1)!;

const savedEnv = { ...process.env };
beforeAll(async () => {
  root = mkdtempSync(join(tmpdir(), 'gsts-bundle-lifecycle-'));
  const built = Promise.all(
    OPERATIONS.map(async (name) => {
      const outfile = join(root, `${name}.mjs`);
      await build(cdkEsbuildOptions(functionCode(name), outfile));
      bundles[name] = outfile;
    }),
  );

  dynamo = await startEmbeddedDynamo({ path: join(root, 'dynamodb') });
  await ensureTables(dynamo.endpoint, tableNames);
  ({ server: proxy, endpoint: proxyEndpoint } = await recordingProxy(dynamo.endpoint, calls));

  // The seed, written by the local run's own (unbundled) helpers into the same tables.
  Object.assign(process.env, tableEnv, { DYNAMODB_ENDPOINT: dynamo.endpoint });
  resetEnv();
  overrideServices({});
  const s = services();
  try {
    await seedCatalog(s);
    apiKey = await ensureDemoKey(s, undefined);
  } finally {
    s.client.destroy();
  }
  await built;
}, 60_000);

afterAll(async () => {
  process.env = savedEnv;
  resetEnv();
  overrideServices({});
  if (proxy) {
    proxy.closeAllConnections();
    await new Promise<void>((resolve) => proxy!.close(() => resolve()));
  }
  await dynamo?.close();
  if (root) rmSync(root, { recursive: true, force: true });
});

/** The environment every configuration shares: what `shared/env.ts` requires and Lambda's own. */
function functionEnv(): Record<string, string> {
  return {
    ...tableEnv,
    AWS_REGION: REGION,
    AWS_DEFAULT_REGION: REGION,
    TZ: 'UTC',
    POWERTOOLS_LOG_LEVEL: 'SILENT',
    // No shared config or credentials files of whoever runs the test: Lambda has none either.
    HOME: join(root, 'home'),
    AWS_CONFIG_FILE: join(root, 'home', 'config'),
    AWS_SHARED_CREDENTIALS_FILE: join(root, 'home', 'credentials'),
  };
}

describe.each([
  {
    configuration: 'lambda',
    env: () => ({ ...functionEnv(), ...LAMBDA_CREDENTIALS, AWS_ENDPOINT_URL_DYNAMODB: proxyEndpoint }),
    signedWith: { accessKeyId: LAMBDA_CREDENTIALS.AWS_ACCESS_KEY_ID, region: REGION, sessionToken: LAMBDA_CREDENTIALS.AWS_SESSION_TOKEN },
  },
  {
    configuration: 'local',
    // Credentials in the environment too (as in Lambda); the local client signs with its own.
    env: () => ({ ...functionEnv(), AWS_ACCESS_KEY_ID: 'AKIAUNUSED', AWS_SECRET_ACCESS_KEY: 'unused', DYNAMODB_ENDPOINT: proxyEndpoint }),
    signedWith: { accessKeyId: 'local', region: 'local', sessionToken: undefined },
  },
])('bundled session lifecycle, $configuration configuration', ({ env, signedWith }) => {
  let steps: Record<string, Reply>;
  let traffic: DynamoCall[];

  beforeAll(async () => {
    const from = calls.length;
    steps = await runLifecycle(env());
    traffic = calls.slice(from);
  }, 30_000);

  test('create-session mints a token for the seeded game (200)', () => {
    expect(steps.created).toMatchObject({ status: 200, headers: { 'content-type': expect.stringContaining('application/json') } });
    expect(steps.created!.body).toEqual({
      success: true,
      data: {
        token: expect.stringMatching(UUID),
        game_id: game.id,
        stream_id: null,
        expires_at: expect.any(String),
        external_ref: 'order-1',
      },
    });
    // Metered: the key's rate-limit counters were written and read back.
    expect(steps.created!.headers.ratelimit).toMatch(/^"minute";r=\d+;t=\d+$/);
  });

  test('validate-session reads it as valid and active (200)', () => {
    expect(steps.validated).toMatchObject({ status: 200 });
    expect(steps.validated!.body).toEqual({
      success: true,
      data: {
        valid: true,
        status: 'active',
        game_id: game.id,
        stream_id: null,
        expires_at: steps.created!.body.data.expires_at,
        external_ref: 'order-1',
        metadata: { source: 'bundle-lifecycle' },
      },
    });
  });

  test('consume-session consumes it once (200), then refuses it (410) and it reads as consumed', () => {
    expect(steps.consumed).toMatchObject({ status: 200 });
    expect(steps.consumed!.body).toEqual({
      success: true,
      data: {
        session_id: expect.any(Number),
        org_id: 1,
        game_id: game.id,
        stream_id: null,
        external_ref: 'order-1',
        metadata: { source: 'bundle-lifecycle' },
      },
    });
    expect(steps.consumed!.body.data.session_id).toBeGreaterThan(0);
    expect(steps.consumedAgain).toMatchObject({ status: 410, body: GONE });
    expect(steps.validatedConsumed).toMatchObject({ status: 200, body: { success: true, data: { valid: false, status: 'consumed' } } });
  });

  test('revoke-session revokes an active token (200); it then validates as revoked, and neither consumes nor revokes (410)', () => {
    expect(steps.second).toMatchObject({ status: 200, body: { success: true, data: { stream_id: stream.id, game_id: null } } });
    expect(steps.revoked).toMatchObject({ status: 200 });
    expect(steps.revoked!.body).toEqual({
      success: true,
      data: {
        valid: false,
        status: 'revoked',
        game_id: null,
        stream_id: stream.id,
        expires_at: steps.second!.body.data.expires_at,
        external_ref: null,
        metadata: null,
      },
    });
    expect(steps.validatedRevoked).toMatchObject({ status: 200, body: { success: true, data: { valid: false, status: 'revoked' } } });
    expect(steps.consumedRevoked).toMatchObject({ status: 410, body: GONE });
    expect(steps.revokedAgain).toMatchObject({ status: 410, body: GONE });
  });

  test('create-session with a well-formed key that was never issued: 401', () => {
    expect(steps.unknownKey).toMatchObject({ status: 401, body: { success: false, error: 'Invalid API key' } });
  });

  test('every DynamoDB call reached the store, signed with the configuration’s credentials and region', () => {
    expect(traffic.length).toBeGreaterThan(10);
    for (const call of traffic) {
      expect(call).toMatchObject({ ...signedWith, table: expect.stringMatching(/^lifecycle-/) });
    }
    // Every call succeeded but the conditional writes the 410s came from (none throttled, none failed otherwise).
    const failed = traffic.filter((c) => c.status !== 200);
    expect(failed.every((c) => c.error === 'ConditionalCheckFailedException')).toBe(true);
  });

  test('the 410s are the token store’s conditional writes failing: second consume, consume and revoke of a revoked token', () => {
    const refusedTokenWrites = traffic.filter((c) => c.table === tableNames.tokens && c.error !== undefined);
    expect(refusedTokenWrites).toEqual([
      expect.objectContaining({ operation: 'UpdateItem', error: 'ConditionalCheckFailedException' }),
      expect.objectContaining({ operation: 'UpdateItem', error: 'ConditionalCheckFailedException' }),
      expect.objectContaining({ operation: 'UpdateItem', error: 'ConditionalCheckFailedException' }),
    ]);
  });
});

/**
 * Run the lifecycle in one fresh Node process with the given environment: every bundle imported
 * once (one container each, warm after its first call), each step a handler call.
 */
async function runLifecycle(env: Record<string, string>): Promise<Record<string, Reply>> {
  // The event routing as the local front (and the edge rewrite) applies it: public path and `?action=`.
  const events = Object.fromEntries(
    OPERATIONS.map((operation) => {
      const method = operation === 'validate-session' ? 'GET' : 'POST';
      const match = matchRoute(method, API_PATH, operation);
      if (match.kind !== 'route' || match.route.function !== operation)
        throw new Error(`${method} ${operation} is not routed to its function`);
      return [operation, { method, routeKey: `${match.route.method} ${originPath(match.route)}`, file: bundles[operation] }];
    }),
  ) as Record<Operation, { method: string; routeKey: string; file: string }>;
  const run = await runNode(LIFECYCLE_SCRIPT, {
    ...env,
    LIFECYCLE_EVENTS: JSON.stringify(events),
    LIFECYCLE_INPUT: JSON.stringify({ apiKey, unknownKey: generateRawKey(), gameId: game.id, streamId: stream.id, path: API_PATH }),
  });
  const marker = run.stdout.indexOf('RESULT');
  if (run.status !== 0 || marker < 0) throw new Error(`the lifecycle failed (exit ${run.status}): ${run.stderr.slice(0, 3000)}`);
  return JSON.parse(run.stdout.slice(marker + 'RESULT'.length)) as Record<string, Reply>;
}

/** The child's script: plain JavaScript, the bundles being what is under test. */
const LIFECYCLE_SCRIPT = `
  import { randomUUID } from 'node:crypto';
  import { pathToFileURL } from 'node:url';
  const events = JSON.parse(process.env.LIFECYCLE_EVENTS);
  const input = JSON.parse(process.env.LIFECYCLE_INPUT);
  const handlers = {};
  for (const [operation, { file }] of Object.entries(events)) handlers[operation] = (await import(pathToFileURL(file).href)).handler;

  /** An API Gateway HTTP API (payload v2) event as the local front builds it, and the handler's answer. */
  async function call(operation, { query = {}, body, apiKey } = {}) {
    const { method, routeKey } = events[operation];
    const search = new URLSearchParams({ action: operation, ...query });
    const headers = { host: 'lifecycle.test', 'user-agent': 'bundle-lifecycle', accept: '*/*' };
    if (body !== undefined) headers['content-type'] = 'application/json';
    if (apiKey !== undefined) headers['x-api-key'] = apiKey;
    const now = Date.now();
    const event = {
      version: '2.0',
      routeKey,
      rawPath: input.path,
      rawQueryString: search.toString(),
      headers,
      queryStringParameters: Object.fromEntries(search),
      requestContext: {
        accountId: '000000000000', apiId: 'lifecycle', domainName: 'lifecycle.test', domainPrefix: 'lifecycle',
        http: { method, path: input.path, protocol: 'HTTP/1.1', sourceIp: '127.0.0.1', userAgent: 'bundle-lifecycle' },
        requestId: randomUUID(), routeKey, stage: '$default', time: new Date(now).toUTCString(), timeEpoch: now,
      },
      body: body === undefined ? undefined : JSON.stringify(body),
      isBase64Encoded: false,
    };
    const deadline = now + 10_000;
    const context = {
      callbackWaitsForEmptyEventLoop: false, functionName: operation, functionVersion: '$LATEST',
      invokedFunctionArn: 'arn:aws:lambda:eu-west-1:000000000000:function:' + operation, memoryLimitInMB: '256',
      awsRequestId: randomUUID(), logGroupName: '/aws/lambda/' + operation, logStreamName: 'lifecycle',
      getRemainingTimeInMillis: () => deadline - Date.now(),
    };
    const result = await handlers[operation](event, context);
    return { status: result.statusCode, headers: result.headers ?? {}, body: JSON.parse(result.body) };
  }

  const steps = {};
  const metadata = { source: 'bundle-lifecycle' };
  steps.created = await call('create-session', { apiKey: input.apiKey, body: { game_id: input.gameId, external_ref: 'order-1', metadata } });
  const token = steps.created.body.data?.token;
  steps.validated = await call('validate-session', { query: { token } });
  steps.consumed = await call('consume-session', { body: { token, player_uuid: 'player-1' } });
  steps.consumedAgain = await call('consume-session', { body: { token } });
  steps.validatedConsumed = await call('validate-session', { query: { token } });
  steps.second = await call('create-session', { apiKey: input.apiKey, body: { stream_id: input.streamId } });
  const second = steps.second.body.data?.token;
  steps.revoked = await call('revoke-session', { apiKey: input.apiKey, body: { token: second } });
  steps.validatedRevoked = await call('validate-session', { query: { token: second } });
  steps.consumedRevoked = await call('consume-session', { body: { token: second } });
  steps.revokedAgain = await call('revoke-session', { apiKey: input.apiKey, body: { token: second } });
  steps.unknownKey = await call('create-session', { apiKey: input.unknownKey, body: { game_id: input.gameId } });
  process.stdout.write('RESULT' + JSON.stringify(steps));
`;

/**
 * Run a module script in a child Node process. Asynchronously: the embedded DynamoDB and the proxy
 * live in this process, and must keep answering while the child runs.
 */
function runNode(script: string, env: Record<string, string>): Promise<{ status: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--input-type=module', '-e', script], {
      env,
      stdio: ['ignore', 'pipe', 'pipe'],
      timeout: 20_000,
    });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk));
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
    child.on('error', reject);
    child.on('close', (status) => resolve({ status, stdout, stderr }));
  });
}

/** An HTTP proxy to `target` that notes every DynamoDB call passing through it. */
async function recordingProxy(target: string, into: DynamoCall[]): Promise<{ server: Server; endpoint: string }> {
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const body = Buffer.concat(chunks);
      const upstream = request(target, { method: req.method, path: req.url, headers: req.headers }, (answer) => {
        const parts: Buffer[] = [];
        answer.on('data', (chunk: Buffer) => parts.push(chunk));
        answer.on('end', () => {
          const reply = Buffer.concat(parts);
          into.push(describeCall(req.headers, body, answer.statusCode ?? 0, reply));
          res.writeHead(answer.statusCode ?? 502, answer.headers);
          res.end(reply);
        });
      });
      upstream.on('error', () => res.writeHead(502).end());
      upstream.end(body);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { server, endpoint: `http://127.0.0.1:${(server.address() as AddressInfo).port}` };
}

function describeCall(headers: Record<string, string | string[] | undefined>, body: Buffer, status: number, reply: Buffer): DynamoCall {
  const credential = /Credential=([^/]+)\/\d{8}\/([^/]+)\/dynamodb\/aws4_request/.exec(String(headers.authorization ?? ''));
  const parse = (json: Buffer): Record<string, unknown> => {
    try {
      return JSON.parse(json.toString('utf8')) as Record<string, unknown>;
    } catch {
      return {};
    }
  };
  const type = status === 200 ? undefined : parse(reply).__type;
  return {
    operation: String(headers['x-amz-target'] ?? '').replace(/^DynamoDB_\d+\./, ''),
    table: parse(body).TableName as string | undefined,
    accessKeyId: credential?.[1],
    region: credential?.[2],
    sessionToken: headers['x-amz-security-token'] as string | undefined,
    status,
    error: typeof type === 'string' ? type.replace(/^.*#/, '') : undefined,
  };
}
