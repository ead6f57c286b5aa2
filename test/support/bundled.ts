/**
 * The deployed bundles against a real DynamoDB, for the `test/infra/bundle-*.test.ts` files: the
 * functions built exactly as CDK builds them (`cdkEsbuildOptions` over `functionCode`), an embedded
 * DynamoDB (dynalite) with every table under physical names unlike the logical ones, a recording
 * proxy in front of it, the local run's own seed helpers, the function environment of each
 * configuration (`lambda`, `local`), and a child Node process that imports the bundles and calls
 * their handlers with API Gateway HTTP API (payload v2) events.
 *
 * The child runs asynchronously (`spawn`): dynalite and the proxy live in the jest process and must
 * keep answering while it runs.
 */
import { build } from 'esbuild';
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer, request, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { functionCode } from '../../infra/functions.js';
import { ensureTables, prefixedTableNames, startEmbeddedDynamo, type EmbeddedDynamo } from '../../infra/local/dynamo.js';
import { resetEnv } from '../../shared/env.js';
import { matchRoute } from '../../shared/routes.js';
import { originPath, type HttpMethod } from '../../shared/operations/operation.js';
import { overrideServices, services, type Services } from '../../shared/services.js';
import { tableEnv as tableEnvOf } from '../../shared/table-env.js';
import type { TableName } from '../../shared/tables.js';
import { cdkEsbuildOptions } from '../bench/cold-start.js';

/** The function's credentials in the `lambda` configuration (Lambda puts the role's in the environment). */
export const LAMBDA_CREDENTIALS = {
  AWS_ACCESS_KEY_ID: 'ASIALIFECYCLETEST',
  AWS_SECRET_ACCESS_KEY: 'lifecycle-secret',
  AWS_SESSION_TOKEN: 'lifecycle-token',
} as const;
/** The region of the `lambda` configuration. */
export const REGION = 'eu-west-1';

/** One DynamoDB call a bundle made, as the recording proxy saw it. */
export interface DynamoCall {
  readonly operation: string;
  readonly table: string | undefined;
  readonly accessKeyId: string | undefined;
  readonly region: string | undefined;
  readonly sessionToken: string | undefined;
  readonly status: number;
  /** The error type DynamoDB answered (`ConditionalCheckFailedException`), if any. */
  readonly error: string | undefined;
  /** The step of the child script that made it (the last {@link CHILD_PRELUDE} `step(name)` before it), if the script names steps. */
  readonly step: string | undefined;
}

/** One handler's answer, as the child reports it: the body parsed when it is JSON, else its text. */
export interface Reply {
  readonly status: number;
  readonly headers: Record<string, string>;
  readonly body: any;
}

/** A running embedded DynamoDB with the service's tables and the recording proxy, and the bundles built for it. */
export interface BundledService {
  /** Temporary folder of this run: bundles, dynalite's data, the functions' empty home. Removed by {@link BundledService.close}. */
  readonly root: string;
  /** The bundle file of each function built, by its routes-table name. */
  readonly bundles: Readonly<Record<string, string>>;
  /** Physical table names, by logical name (`<label>-<name>`). */
  readonly tableNames: Readonly<Record<TableName, string>>;
  /** The table-name variables of the environment (`TOKENS_TABLE`, …) for those names. */
  readonly tableEnv: Readonly<Record<string, string>>;
  /** dynalite itself: what the unbundled helpers of this process use (not recorded). */
  readonly dynamoEndpoint: string;
  /** The recording proxy in front of dynalite: what the bundles are pointed at. */
  readonly proxyEndpoint: string;
  /** Every call that went through the proxy, in the order DynamoDB answered them. */
  readonly calls: DynamoCall[];
  /**
   * Run `work` with this process's (unbundled) services on dynalite directly, as the local run's seed
   * does; the environment and the services are restored afterwards.
   */
  withServices<T>(work: (s: Services) => Promise<T>): Promise<T>;
  /** The environment every configuration shares: what `shared/env.ts` requires and Lambda's own. */
  functionEnv(): Record<string, string>;
  /** Stop the proxy and dynalite, remove the folder. */
  close(): Promise<void>;
}

/**
 * Build the named functions' bundles (in parallel with starting dynalite, creating every table as
 * `<label>-<name>` and starting the recording proxy). Close it in `afterAll`, even when this failed
 * half-way: what started is stopped by the rejection itself.
 */
export async function startBundledService(options: { label: string; functions: readonly string[] }): Promise<BundledService> {
  const { label } = options;
  const root = mkdtempSync(join(tmpdir(), `gsts-bundle-${label}-`));
  // Named by the label (and, on a shared DynamoDB, a prefix of this run's own): the calls recorded show which.
  let tableNames = prefixedTableNames(`${label}-`);
  let tableEnv: Record<string, string> = {};
  const calls: DynamoCall[] = [];
  let dynamo: EmbeddedDynamo | undefined;
  let proxy: Server | undefined;

  const close = async (): Promise<void> => {
    if (proxy) {
      proxy.closeAllConnections();
      await new Promise<void>((resolve) => proxy!.close(() => resolve()));
    }
    await dynamo?.close();
    rmSync(root, { recursive: true, force: true });
  };

  try {
    const built = buildBundles(options.functions, root);
    dynamo = await startEmbeddedDynamo({ path: join(root, 'dynamodb'), scratch: true });
    tableNames = prefixedTableNames(`${label}-${dynamo.tablePrefix}`);
    tableEnv = tableEnvOf((name) => tableNames[name]);
    await ensureTables(dynamo.endpoint, tableNames);
    let proxyEndpoint: string;
    ({ server: proxy, endpoint: proxyEndpoint } = await recordingProxy(dynamo.endpoint, calls));
    const bundles = await built;
    const dynamoEndpoint = dynamo.endpoint;
    return {
      root,
      bundles,
      tableNames,
      tableEnv,
      dynamoEndpoint,
      proxyEndpoint,
      calls,
      withServices: (work) => withLocalServices({ ...tableEnv, DYNAMODB_ENDPOINT: dynamoEndpoint }, work),
      functionEnv: () => ({
        ...tableEnv,
        AWS_REGION: REGION,
        AWS_DEFAULT_REGION: REGION,
        TZ: 'UTC',
        POWERTOOLS_LOG_LEVEL: 'SILENT',
        // The session-id permutation's key, as Secrets Manager hands it to the function.
        SESSION_ID_KEY: 'bundled-test-session-id-key-0123456789abcdef',
        // No shared config or credentials files of whoever runs the test: Lambda has none either.
        HOME: join(root, 'home'),
        AWS_CONFIG_FILE: join(root, 'home', 'config'),
        AWS_SHARED_CREDENTIALS_FILE: join(root, 'home', 'credentials'),
      }),
      close,
    };
  } catch (error) {
    await close();
    throw error;
  }
}

/** Build each function's bundle with the settings CDK uses, into `dir/<name>.mjs`; the files by name. */
export async function buildBundles(names: readonly string[], dir: string): Promise<Record<string, string>> {
  const files = await Promise.all(
    names.map(async (name) => {
      const outfile = join(dir, `${name}.mjs`);
      await build(cdkEsbuildOptions(functionCode(name), outfile));
      return [name, outfile] as const;
    }),
  );
  return Object.fromEntries(files);
}

/** The unbundled services of this process on the given environment, for one piece of work. */
async function withLocalServices<T>(environment: Record<string, string>, work: (s: Services) => Promise<T>): Promise<T> {
  const saved = { ...process.env };
  Object.assign(process.env, environment);
  resetEnv();
  overrideServices({});
  const s = services();
  try {
    return await work(s);
  } finally {
    s.client.destroy();
    process.env = saved;
    resetEnv();
    overrideServices({});
  }
}

/** A configuration the bundles run in: its environment, and what its DynamoDB calls are signed with. */
export interface Configuration {
  readonly configuration: 'lambda' | 'local';
  readonly env: (service: BundledService) => Record<string, string>;
  readonly signedWith: { readonly accessKeyId: string; readonly region: string; readonly sessionToken: string | undefined };
}

/**
 * The two configurations:
 * - `lambda`: the environment of a deployed function (no `DYNAMODB_ENDPOINT`: the client AWS uses,
 *   with its request timeouts, region from `AWS_REGION` and credentials from the environment through
 *   the stand-in), pointed at the proxy by the SDK's standard `AWS_ENDPOINT_URL_DYNAMODB`.
 * - `local`: `DYNAMODB_ENDPOINT` set, the client of the local run (fixed local credentials).
 */
export const CONFIGURATIONS: readonly Configuration[] = [
  {
    configuration: 'lambda',
    env: (service) => ({ ...service.functionEnv(), ...LAMBDA_CREDENTIALS, AWS_ENDPOINT_URL_DYNAMODB: service.proxyEndpoint }),
    signedWith: { accessKeyId: LAMBDA_CREDENTIALS.AWS_ACCESS_KEY_ID, region: REGION, sessionToken: LAMBDA_CREDENTIALS.AWS_SESSION_TOKEN },
  },
  {
    configuration: 'local',
    // Credentials in the environment too (as in Lambda); the local client signs with its own.
    env: (service) => ({
      ...service.functionEnv(),
      AWS_ACCESS_KEY_ID: 'AKIAUNUSED',
      AWS_SECRET_ACCESS_KEY: 'unused',
      DYNAMODB_ENDPOINT: service.proxyEndpoint,
    }),
    signedWith: { accessKeyId: 'local', region: 'local', sessionToken: undefined },
  },
];

/** Where the child sends one operation: its bundle, and the event fields the routing gives it. */
export interface Target {
  /** The bundle file. */
  readonly file: string;
  /** The function name (the Lambda context's `functionName`). */
  readonly function: string;
  readonly method: HttpMethod;
  /** The public path (`rawPath`). */
  readonly path: string;
  /** The `?action=` value, when the path is shared. */
  readonly action: string | undefined;
  /** The API route key (`POST /api/org-api-keys/create-session`), as the edge rewrite addresses it. */
  readonly routeKey: string;
}

/**
 * The target of a public request, routed as the local front (and the edge rewrite) routes it: public
 * path and `?action=`, served by the bundle of its function in `bundles`.
 * @throws when the routes table does not route the request, or its function was not built
 */
export function routedTarget(bundles: Readonly<Record<string, string>>, method: HttpMethod, path: string, action?: string): Target {
  const match = matchRoute(method, path, action);
  if (match.kind !== 'route') throw new Error(`${method} ${path}${action ? `?action=${action}` : ''} is not routed (${match.kind})`);
  const file = bundles[match.route.function];
  if (!file) throw new Error(`the bundle of function ${match.route.function} was not built`);
  return {
    file,
    function: match.route.function,
    method,
    path,
    action,
    routeKey: `${match.route.method} ${originPath(match.route)}`,
  };
}

/** Path of the proxy that marks a step instead of forwarding (never a DynamoDB path: the SDK posts to `/`). */
const STEP_PATH = '/__bundled-step';

/**
 * What every child script starts with (plain JavaScript: the bundles are what is under test). From
 * `BUNDLED_INPUT` (`{ targets, label, proxy, input }`) it imports each target's bundle once (one
 * container each, warm after its first call) and defines:
 * - `input`: the test's own data;
 * - `invoke(target, { query, headers, body })`: call the target's handler with an API Gateway HTTP
 *   API (payload v2) event as the local front builds it (headers lower-case; `body` sent as JSON
 *   unless a string) and a Lambda context with 10 s left; answers `{ status, headers, body }`;
 * - `step(name)`: tell the recording proxy that the DynamoDB calls from now on belong to `name`;
 * - `done(result)`: hand `result` back to {@link runBundled}.
 */
export const CHILD_PRELUDE = `
  import { randomUUID } from 'node:crypto';
  import { pathToFileURL } from 'node:url';
  const { targets, label, proxy, input } = JSON.parse(process.env.BUNDLED_INPUT);
  const handlers = {};
  for (const file of new Set(Object.values(targets).map((t) => t.file))) handlers[file] = (await import(pathToFileURL(file).href)).handler;

  async function invoke(target, { query = {}, headers = {}, body } = {}) {
    const { file, method, path, action, routeKey } = targets[target];
    const search = new URLSearchParams({ ...(action === undefined ? {} : { action }), ...query });
    const allHeaders = { host: label + '.test', 'user-agent': 'bundle-' + label, accept: '*/*' };
    if (body !== undefined) allHeaders['content-type'] = 'application/json';
    for (const [name, value] of Object.entries(headers)) allHeaders[name.toLowerCase()] = value;
    const now = Date.now();
    const event = {
      version: '2.0',
      routeKey,
      rawPath: path,
      rawQueryString: search.toString(),
      headers: allHeaders,
      queryStringParameters: search.size ? Object.fromEntries(search) : undefined,
      requestContext: {
        accountId: '000000000000', apiId: label, domainName: label + '.test', domainPrefix: label,
        http: { method, path, protocol: 'HTTP/1.1', sourceIp: '127.0.0.1', userAgent: 'bundle-' + label },
        requestId: randomUUID(), routeKey, stage: '$default', time: new Date(now).toUTCString(), timeEpoch: now,
      },
      body: body === undefined ? undefined : typeof body === 'string' ? body : JSON.stringify(body),
      isBase64Encoded: false,
    };
    const name = targets[target].function;
    const deadline = now + 10_000;
    const context = {
      callbackWaitsForEmptyEventLoop: false, functionName: name, functionVersion: '$LATEST',
      invokedFunctionArn: 'arn:aws:lambda:eu-west-1:000000000000:function:' + name, memoryLimitInMB: '256',
      awsRequestId: randomUUID(), logGroupName: '/aws/lambda/' + name, logStreamName: label,
      getRemainingTimeInMillis: () => deadline - Date.now(),
    };
    const result = await handlers[file](event, context);
    let answer = result.body ?? '';
    try {
      answer = JSON.parse(answer);
    } catch {}
    return { status: result.statusCode, headers: result.headers ?? {}, body: answer };
  }

  async function step(name) {
    const res = await fetch(proxy + '${STEP_PATH}', { method: 'POST', body: name });
    if (res.status !== 204) throw new Error('the proxy did not take step ' + name);
  }

  function done(result) {
    process.stdout.write('RESULT' + JSON.stringify(result));
  }
`;

/**
 * Run `script` after {@link CHILD_PRELUDE} in a fresh Node process with `env` (and nothing else of
 * this process's environment): the bundles of `targets` imported once, `input` handed over.
 * @returns what the script passed to `done`
 * @throws with the child's stderr when it failed or never called `done`
 */
export async function runBundled<T>(
  script: string,
  options: {
    readonly env: Record<string, string>;
    readonly service: BundledService;
    readonly targets: Readonly<Record<string, Target>>;
    readonly label: string;
    readonly input: unknown;
  },
): Promise<T> {
  const { env, service, targets, label, input } = options;
  const run = await runNode(CHILD_PRELUDE + script, {
    ...env,
    BUNDLED_INPUT: JSON.stringify({ targets, label, proxy: service.proxyEndpoint, input }),
  });
  const marker = run.stdout.indexOf('RESULT');
  if (run.status !== 0 || marker < 0) throw new Error(`the bundled run failed (exit ${run.status}): ${run.stderr.slice(0, 3000)}`);
  return JSON.parse(run.stdout.slice(marker + 'RESULT'.length)) as T;
}

/**
 * Run a module script in a child Node process. Asynchronously: the embedded DynamoDB and the proxy
 * live in this process, and must keep answering while the child runs.
 */
export function runNode(script: string, env: Record<string, string>): Promise<{ status: number | null; stdout: string; stderr: string }> {
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

/**
 * An HTTP proxy to `target` that notes every DynamoDB call passing through it (when DynamoDB has
 * answered it), each with the child's step current at that moment.
 */
export async function recordingProxy(target: string, into: DynamoCall[]): Promise<{ server: Server; endpoint: string }> {
  let step: string | undefined;
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const body = Buffer.concat(chunks);
      if (req.url === STEP_PATH) {
        step = body.toString('utf8');
        res.writeHead(204).end();
        return;
      }
      const upstream = request(target, { method: req.method, path: req.url, headers: req.headers }, (answer) => {
        const parts: Buffer[] = [];
        answer.on('data', (chunk: Buffer) => parts.push(chunk));
        answer.on('end', () => {
          const reply = Buffer.concat(parts);
          into.push(describeCall(req.headers, body, answer.statusCode ?? 0, reply, step));
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

function describeCall(
  headers: Record<string, string | string[] | undefined>,
  body: Buffer,
  status: number,
  reply: Buffer,
  step: string | undefined,
): DynamoCall {
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
    step,
  };
}
