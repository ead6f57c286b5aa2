/**
 * A benchmark run that fails or is interrupted stops what it started: a run (a child Node process
 * set up as `test/bench/run.ts` is) starts the bench's DynamoDB process (`dynamo-process.ts`), then
 * ends by an exception, an unhandled rejection, SIGINT, SIGTERM or SIGKILL. The DynamoDB process is
 * gone after it and nothing answers at its endpoint: its stop on the run's handlers (`run-end.ts`),
 * or, where no handler runs (SIGKILL), its own end when the run's end of its input pipe closes. On
 * the `-local` project the DynamoDB is DynamoDB Local, whose JVM must go with it.
 */
import { expect, test } from '@jest/globals';
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import type { DynamoConnection } from '../../infra/local/dynamo.js';

const BACKEND = process.env.DYNAMODB_BACKEND === 'local' ? 'local' : 'dynalite';
const module = (path: string) => new URL(path, import.meta.url).href;

/**
 * The run: its handlers as run.ts installs them, its DynamoDB process, then the end it is told
 * (an exception or a rejection once the test writes a line to it).
 */
const RUN = `
  import { startDynamoProcess } from '${module('../bench/dynamo-process.ts')}';
  import { stopAllWhenRunFails, stopWhenRunFails } from '${module('../bench/run-end.ts')}';
  const [folder, backend, end] = process.argv.slice(1);
  stopAllWhenRunFails();
  const dynamo = await startDynamoProcess(folder, backend);
  stopWhenRunFails(() => dynamo.close());
  process.stdout.write(JSON.stringify({ pid: dynamo.pid, connection: dynamo.connection }) + '\\n');
  // It fails when the test has seen its DynamoDB answer (a line on its input); a signal may come first.
  process.stdin.once('data', () => {
    if (end === 'exception') throw new Error('the run failed');
    if (end === 'rejection') void Promise.reject(new Error('the run failed'));
  });
`;

/** Whether a process runs (a zombie waiting for its reaper does not). */
function running(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch {
    return false;
  }
  try {
    return readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]?.[0] !== 'Z';
  } catch {
    return false;
  }
}

/** Whether something accepts a connection at the DynamoDB's endpoint (dynalite: its Unix socket). */
function answers(connection: DynamoConnection): Promise<boolean> {
  const url = new URL(connection.endpoint);
  const socket = connection.socketPath ? connect(connection.socketPath) : connect(Number(url.port), url.hostname);
  return new Promise((resolve) => {
    socket.once('connect', () => resolve(true)).once('error', () => resolve(false));
  }).finally(() => socket.destroy()) as Promise<boolean>;
}

/** Wait until `gone` holds, checking every 100 ms; false if it still does not after `boundMs`. */
async function eventually(gone: () => Promise<boolean> | boolean, boundMs: number): Promise<boolean> {
  for (const until = Date.now() + boundMs; Date.now() < until; await new Promise((r) => setTimeout(r, 100))) {
    if (await gone()) return true;
  }
  return gone();
}

const ENDS = [
  { end: 'exception', code: 1, signal: null },
  { end: 'rejection', code: 1, signal: null },
  { end: 'SIGINT', code: 130, signal: null },
  { end: 'SIGTERM', code: 143, signal: null },
  { end: 'SIGKILL', code: null, signal: 'SIGKILL' },
] as const;

// A JVM per case is slow to start: on DynamoDB Local, the run's handlers once and the pipe once.
test.each(BACKEND === 'local' ? ENDS.filter((e) => e.end === 'exception' || e.end === 'SIGKILL') : ENDS)(
  `a run ended by $end: the DynamoDB process it started (${BACKEND}) is gone, nothing answers at its endpoint`,
  async ({ end, code, signal }) => {
    const folder = mkdtempSync(join(tmpdir(), 'gsts-bench-end-'));
    const run = spawn(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', RUN, folder, BACKEND, end], {
      stdio: ['pipe', 'pipe', 'pipe'],
      // A run of its own, as `npm run bench` is: not on this test worker's DynamoDB Local (`-local` projects).
      env: { ...process.env, NODE_OPTIONS: '', DYNAMODB_LOCAL_ENDPOINTS: '', JEST_WORKER_ID: '' },
    });
    let stderr = '';
    let started: number | undefined;
    run.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
    const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
      run.once('exit', (exitCode, exitSignal) => resolve({ code: exitCode, signal: exitSignal })),
    );
    try {
      const line = await new Promise<string>((resolve, reject) => {
        createInterface({ input: run.stdout }).once('line', resolve);
        void exited.then(() => reject(new Error(`the run ended before its DynamoDB started: ${stderr}`)));
      });
      const dynamo = JSON.parse(line) as { pid: number; connection: DynamoConnection };
      started = dynamo.pid;
      expect(running(dynamo.pid)).toBe(true);
      expect(await answers(dynamo.connection)).toBe(true);
      if (end.startsWith('SIG')) run.kill(end as NodeJS.Signals);
      else run.stdin.write('fail now\n');
      expect(await exited).toEqual({ code, signal });
      // The run has ended: its DynamoDB is stopping or stopped (a JVM takes a moment to let its port go).
      expect(await eventually(() => !running(dynamo.pid), 30_000)).toBe(true);
      expect(await eventually(async () => !(await answers(dynamo.connection)), 30_000)).toBe(true);
    } finally {
      run.kill('SIGKILL');
      // A failed test leaves nothing running either.
      if (started !== undefined && running(started)) process.kill(started, 'SIGTERM');
      // DynamoDB Local keeps its data beside the folder it is given (`infra/local/dynamo.ts`).
      for (const made of [folder, `${folder}-local`]) rmSync(made, { recursive: true, force: true });
    }
  },
  180_000,
);
