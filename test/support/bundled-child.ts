/**
 * The child process of the bundled tests: a plain Node process that imports the bundles and calls
 * their handlers as Lambda would, with API Gateway HTTP API (payload v2) events built by the local
 * front's own builder. It runs asynchronously (`spawn`): the embedded DynamoDB and the recording
 * proxy live in the jest process and must keep answering while it runs.
 */
import { build } from 'esbuild';
import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { PROJECT_ROOT } from '../../infra/functions.js';
import { routeKey } from '../../infra/capacity.js';
import type { HttpMethod } from '../../shared/platform/route.js';
import { matchRoute } from '../../shared/routes.js';
import type { BundledService } from './bundled.js';
import { STEP_PATH } from './recording-proxy.js';

/** One handler's answer, as the child reports it: the body parsed when it is JSON, else its text. */
export interface Reply {
  readonly status: number;
  readonly headers: Record<string, string>;
  readonly body: any;
}

/** Where the child sends one operation: its bundle, and the event fields the routing gives it. */
interface Target {
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
    routeKey: routeKey(match.route),
  };
}

/**
 * What every child script starts with (plain JavaScript: the bundles are what is under test). From
 * `BUNDLED_INPUT` (`{ targets, label, proxy, events, input }`) it imports each target's bundle once
 * (one container each, warm after its first call) and the local front's event builder, and defines:
 * - `input`: the test's own data;
 * - `invoke(target, { query, headers, body })`: call the target's handler with the API Gateway HTTP
 *   API (payload v2) event the local front would build (headers lower-case; `body` sent as JSON
 *   unless a string) and a Lambda context with 10 s left; answers `{ status, headers, body }`;
 * - `step(name)`: tell the recording proxy that the DynamoDB calls from now on belong to `name`;
 * - `done(result)`: hand `result` back to {@link runBundled}.
 */
const CHILD_PRELUDE = `
  import { pathToFileURL } from 'node:url';
  const { targets, label, proxy, events, input } = JSON.parse(process.env.BUNDLED_INPUT);
  const handlers = {};
  for (const file of new Set(Object.values(targets).map((t) => t.file))) handlers[file] = (await import(pathToFileURL(file).href)).handler;
  const { apiGatewayEvent, lambdaContext } = await import(pathToFileURL(events).href);

  async function invoke(target, { query = {}, headers = {}, body } = {}) {
    const { file, method, path, action, routeKey } = targets[target];
    const search = new URLSearchParams({ ...(action === undefined ? {} : { action }), ...query });
    const allHeaders = { host: label + '.test', 'user-agent': 'bundle-' + label, accept: '*/*' };
    if (body !== undefined) allHeaders['content-type'] = 'application/json';
    for (const [name, value] of Object.entries(headers)) allHeaders[name.toLowerCase()] = value;
    const text = body === undefined ? undefined : typeof body === 'string' ? body : JSON.stringify(body);
    const event = apiGatewayEvent({ method, path, query: search.toString(), headers: allHeaders, body: text, routeKey });
    const result = await handlers[file](event, lambdaContext(targets[target].function, 10_000));
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
    process.stdout.write('RESULT' + JSON.stringify(result) + '\\n');
  }
`;

/** The local front's event builder (`infra/local/api-event.ts`) as one plain module, in `dir`, for the child. */
export async function buildEventModule(dir: string): Promise<string> {
  const outfile = join(dir, 'api-event.mjs');
  const entry = join(PROJECT_ROOT, 'infra', 'local', 'api-event.ts');
  await build({ entryPoints: [entry], outfile, bundle: true, platform: 'node', format: 'esm', logLevel: 'warning' });
  return outfile;
}

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
    BUNDLED_INPUT: JSON.stringify({ targets, label, proxy: service.proxyEndpoint, events: service.eventModule, input }),
  });
  const lines = run.stdout.split('\n');
  const result = lines.find((l) => l.startsWith('RESULT'));
  // The bundles' own log lines (errors: a 500's names its error), metric lines left out: the test
  // support prints them only for a file whose test failed (`quiet-environment.js`).
  const logged = [...lines.filter((l) => l !== result), ...run.stderr.split('\n')].filter((l) => l && !l.startsWith('{"_aws"'));
  if (logged.length > 0) console.log(`the bundled ${label} run logged:\n${logged.join('\n')}`);
  if (run.status !== 0 || result === undefined)
    throw new Error(`the bundled run failed (exit ${run.status}): ${run.stderr.slice(0, 3000)}`);
  return JSON.parse(result.slice('RESULT'.length)) as T;
}

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
