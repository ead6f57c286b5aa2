/**
 * `npm start` as a reader runs it: the real script (`tsx infra/local/start.ts`) in a child process,
 * on the backend a test names (never the one the test project's own stacks use: the `-local`
 * projects' variables are dropped), with its own port and data folder.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));

/** The environment of an `npm start`: the test's, less the variables that pick a DynamoDB, plus `env`. */
function npmStartEnv(env: Record<string, string>): NodeJS.ProcessEnv {
  const { DYNAMODB_BACKEND: _b, DYNAMODB_ENDPOINT: _e, DYNAMODB_LOCAL_ENDPOINTS: _l, DYNAMODB_TABLE_PREFIX: _p, ...rest } = process.env;
  return { ...rest, NODE_OPTIONS: '', ...env };
}

/** Spawn `npm start`'s script with `env` added to {@link npmStartEnv}. */
function spawnNpmStart(env: Record<string, string>): ChildProcess {
  return spawn(join(ROOT, 'node_modules/.bin/tsx'), ['infra/local/start.ts'], {
    cwd: ROOT,
    env: npmStartEnv(env),
    stdio: ['ignore', 'pipe', 'pipe'],
  });
}

/** A running `npm start`: its process, what it printed, the base URL it listens on. */
export interface RunningNpmStart {
  readonly child: ChildProcess;
  readonly printed: string;
  readonly baseUrl: string;
  /** End it (SIGTERM: it closes its database and front) and wait for it to exit. */
  stop(): Promise<void>;
}

/** Start `npm start` and wait for its guide (the last line it prints once ready). */
export async function runNpmStart(env: Record<string, string>): Promise<RunningNpmStart> {
  const child = spawnNpmStart(env);
  let printed = '';
  let stderr = '';
  child.stderr!.on('data', (chunk: Buffer) => (stderr += chunk.toString('utf8')));
  await new Promise<void>((ready, fail) => {
    child.stdout!.on('data', (chunk: Buffer) => {
      printed += chunk.toString('utf8');
      if (printed.includes('Interface description')) ready();
    });
    child.once('exit', (code) => fail(new Error(`npm start exited (${code}) before printing its guide:\n${printed}\n${stderr}`)));
  });
  return { child, printed, baseUrl: /listening on (\S+)/.exec(printed)![1]!, stop: () => stopChild(child) };
}

/** Run `npm start` to its end (it fails to start): its exit code and what it wrote. */
export function npmStartOutcome(env: Record<string, string>): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const child = spawnNpmStart(env);
  let stdout = '';
  let stderr = '';
  child.stdout!.on('data', (chunk: Buffer) => (stdout += chunk.toString('utf8')));
  child.stderr!.on('data', (chunk: Buffer) => (stderr += chunk.toString('utf8')));
  return new Promise((done) => child.once('close', (code) => done({ code, stdout, stderr })));
}

function stopChild(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return new Promise<void>((done) => {
    child.once('exit', () => done());
    child.kill('SIGTERM');
  });
}
