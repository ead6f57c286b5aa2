/**
 * Real bundling: every function of the routes table, built by CDK with the local esbuild exactly as
 * `cdk synth` builds it (`functionCode()`, no Docker), is one ES module that Node 24 loads and that answers an
 * empty request without crashing (which proves the `require` banner and the bundled dependencies),
 * with only the variables CDK gives that function (`shared/platform/env-parts.ts`).
 */
import { afterAll, beforeAll, expect, test } from '@jest/globals';
import { Stack } from 'aws-cdk-lib';
import { NodejsFunction } from 'aws-cdk-lib/aws-lambda-nodejs';
import { spawnSync } from 'node:child_process';
import { readdirSync, rmSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { functionCode } from '../../infra/functions.js';
import { pascalCase } from '../../infra/construct-ids.js';
import { apiGatewayEvent } from '../../infra/local/api-event.js';
import { functionNames } from '../../infra/permissions.js';
import { functionEnvVars, workerEnvVars } from '../../shared/platform/env-parts.js';
import { workers } from '../../shared/workers.js';
import { routes } from '../../shared/routes.js';
import { tableEnv } from '../../shared/platform/env.js';
import { cdkApp, withoutBundlingLines } from './fixture.js';

const names = functionNames(routes);
/** The workers' functions (shared/workers.ts), bundled the same way. */
const workerNames = workers.map((w) => w.function);
const bundles = new Map<string, string>();
let outdir: string | undefined;

const savedDocker = process.env.CDK_DOCKER;
beforeAll(() => {
  // CDK would run this command for Docker bundling; `false` fails, so a passing synth used the local esbuild.
  process.env.CDK_DOCKER = 'false';
  const app = cdkApp();
  const stack = new Stack(app, 'Bundles');
  // CDK bundles each function as its construct is made.
  const functions = withoutBundlingLines(() =>
    [...names, ...workerNames].map((name) => [name, new NodejsFunction(stack, pascalCase(name), functionCode(name))] as const),
  );
  const assembly = app.synth();
  outdir = assembly.directory;
  const template = assembly.getStackByName('Bundles').template as {
    Resources: Record<string, { Properties: { Code: { S3Key: string } } }>;
  };
  for (const [name, fn] of functions) {
    const key = template.Resources[stack.getLogicalId(fn.node.defaultChild as never)]!.Properties.Code.S3Key;
    bundles.set(name, join(assembly.directory, `asset.${key.replace(/\.zip$/, '')}`));
  }
}, 120_000);
afterAll(() => {
  if (savedDocker === undefined) delete process.env.CDK_DOCKER;
  else process.env.CDK_DOCKER = savedDocker;
  if (outdir) rmSync(outdir, { recursive: true, force: true });
});

test('each function is a single ES module file (the workers too)', () => {
  for (const name of [...names, ...workerNames]) {
    const dir = bundles.get(name)!;
    expect(readdirSync(dir)).toEqual(['index.mjs']);
    // Everything is inside (the AWS SDK too): no node_modules next to it, and a sizeable file.
    expect(statSync(join(dir, 'index.mjs')).size).toBeGreaterThan(100_000);
  }
});

/**
 * Bundle size (KB of 1,024 bytes, as CDK deploys it; BENCHMARKS.md, "Bundles and cold starts"): at
 * most 340 KB for every function but mcp. Powertools Logger and Metrics, which write the service's
 * lines (shared/platform/observability.ts), cost every function about 30 KB of it; the webhook
 * management functions, the largest (about 334 KB), also carry the endpoint filter, the host
 * resolution at registration and the organization's budget of hand sends.
 */
const BUNDLE_LIMIT_KB = 340;

test('each bundle but mcp is at most 340 KB (the workers too)', () => {
  const sizes = [...names, ...workerNames]
    .filter((name) => name !== 'mcp')
    .map((name) => [name, statSync(join(bundles.get(name)!, 'index.mjs')).size / 1024]);
  const over = sizes.filter(([, kb]) => (kb as number) > BUNDLE_LIMIT_KB);
  expect(over).toEqual([]);
});

test('each bundle loads in Node 24 with only its own environment, exports handler and answers an empty request (< 500)', () => {
  const script = `
    const results = {};
    const own = JSON.parse(process.env.OWN_ENV);
    const emptyRequest = process.env.EVENT;
    for (const [name, file] of Object.entries(JSON.parse(process.env.BUNDLES))) {
      // The variables CDK gives this function, and nothing of the one before.
      for (const variable of Object.keys(process.env)) if (variable !== 'PATH') delete process.env[variable];
      Object.assign(process.env, own[name]);
      const { handler } = await import(file);
      const event = JSON.parse(emptyRequest);
      const response = await handler(event, { getRemainingTimeInMillis: () => 10000 });
      results[name] = { type: typeof handler, status: response && response.statusCode };
    }
    process.stdout.write('RESULT' + JSON.stringify(results));
  `;
  const settings: Record<string, string> = {
    ...tableEnv((_, t) => `bundle-test-${t.id}`),
    // Nothing listens here: an operation that reached DynamoDB before refusing the empty request would fail.
    DYNAMODB_ENDPOINT: 'http://127.0.0.1:9',
    POWERTOOLS_LOG_LEVEL: 'SILENT',
  };
  const own = Object.fromEntries(
    names.map((name) => {
      const vars = functionEnvVars(routes, name).filter((v) => v in settings);
      return [name, { AWS_REGION: 'eu-west-1', ...Object.fromEntries(vars.map((v) => [v, settings[v]!])) }];
    }),
  );
  const env = {
    PATH: process.env.PATH,
    OWN_ENV: JSON.stringify(own),
    // The empty request, as API Gateway hands it over (a fresh copy for each handler: they may change it).
    EVENT: JSON.stringify(apiGatewayEvent({ method: 'GET', path: '/', routeKey: 'GET /' })),
    BUNDLES: JSON.stringify(Object.fromEntries(names.map((name) => [name, join(bundles.get(name)!, 'index.mjs')]))),
  };
  const run = spawnSync(process.execPath, ['--input-type=module', '-e', script], { env, encoding: 'utf8', timeout: 60_000 });
  const out = run.stdout.slice(run.stdout.indexOf('RESULT') + 'RESULT'.length);
  expect({ exit: run.status, stderr: run.stderr.slice(0, 2000) }).toEqual({ exit: 0, stderr: expect.any(String) });
  const results = JSON.parse(out) as Record<string, { type: string; status: number }>;
  for (const name of names) {
    expect([name, results[name]!.type]).toEqual([name, 'function']);
    expect([name, results[name]!.status < 500]).toEqual([name, true]);
  }
});

test('each worker bundle loads in Node 24 with only its own environment and exports handler; a stream or queue worker answers an empty batch with no failures', () => {
  const script = `
    const results = {};
    const own = JSON.parse(process.env.OWN_ENV);
    for (const [name, file] of Object.entries(JSON.parse(process.env.BUNDLES))) {
      for (const variable of Object.keys(process.env)) if (variable !== 'PATH') delete process.env[variable];
      Object.assign(process.env, own[name]);
      const { handler } = await import(file);
      // The scheduled worker reads DynamoDB at once (nothing listens here): only its export is checked.
      const answer = name === 'webhook-due' ? null : await handler({ Records: [] });
      results[name] = { type: typeof handler, answer };
    }
    process.stdout.write('RESULT' + JSON.stringify(results));
  `;
  const settings: Record<string, string> = {
    ...tableEnv((_, t) => `bundle-test-${t.id}`),
    DYNAMODB_ENDPOINT: 'http://127.0.0.1:9',
    POWERTOOLS_LOG_LEVEL: 'SILENT',
    WEBHOOK_DELIVERY_QUEUE_URL: 'https://sqs.eu-west-1.amazonaws.com/123456789012/webhook-deliveries',
    WEBHOOK_STREAM_FAILURES_QUEUE_URL: 'https://sqs.eu-west-1.amazonaws.com/123456789012/stream-failures',
    WEBHOOK_SECRET_KEY: 'w'.repeat(64),
  };
  const own = Object.fromEntries(
    workers.map((w) => {
      const vars = workerEnvVars(w).filter((v) => v in settings);
      return [w.function, { AWS_REGION: 'eu-west-1', ...Object.fromEntries(vars.map((v) => [v, settings[v]!])) }];
    }),
  );
  const env = {
    PATH: process.env.PATH,
    OWN_ENV: JSON.stringify(own),
    BUNDLES: JSON.stringify(Object.fromEntries(workerNames.map((name) => [name, join(bundles.get(name)!, 'index.mjs')]))),
  };
  const run = spawnSync(process.execPath, ['--input-type=module', '-e', script], { env, encoding: 'utf8', timeout: 60_000 });
  const out = run.stdout.slice(run.stdout.indexOf('RESULT') + 'RESULT'.length);
  expect({ exit: run.status, stderr: run.stderr.slice(0, 2000) }).toEqual({ exit: 0, stderr: expect.any(String) });
  expect(JSON.parse(out)).toEqual({
    'webhook-events': { type: 'function', answer: { batchItemFailures: [] } },
    'webhook-due': { type: 'function', answer: null },
    'webhook-delivery': { type: 'function', answer: { batchItemFailures: [] } },
  });
});
