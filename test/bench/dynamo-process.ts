/**
 * The benchmark's DynamoDB in a process of its own: the embedded dynalite (or DynamoDB Local with
 * `--backend local`, its JVM a child of that process). In the service's
 * process the emulator's CPU work would serialize calls the code issues in parallel (a 2-stage
 * create with 3 calls in its second stage measured like 4 stages); here it runs on the other core,
 * as DynamoDB runs on its own machines, so an operation's latency counts its round trips.
 *
 * Run as a script (`node --import tsx dynamo-process.ts <folder>`), it prints one JSON line with
 * how to reach it and serves until its standard input closes or it is signalled;
 * {@link startDynamoProcess} does that from the benchmark, holding the other end of that input: the
 * process ends with the benchmark however the benchmark ends (an exception, a signal, even SIGKILL),
 * and stops its DynamoDB Local JVM as it goes.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { startEmbeddedDynamo, type DynamoConnection, type EmbeddedDynamo } from '../../infra/local/dynamo.js';

/** How to reach the DynamoDB process (dynalite: its Unix socket), and which engine serves it. */
export interface DynamoProcess {
  readonly connection: DynamoConnection;
  readonly backend: EmbeddedDynamo['backend'];
  /** The process's id. */
  readonly pid: number;
  close(): Promise<void>;
}

/**
 * The engine the benchmark runs on: dynalite, or AWS's DynamoDB Local with
 * `npm run bench -- --backend local` (docs/dynamodb-backends.md).
 */
export function benchBackend(argv: readonly string[] = process.argv): 'dynalite' | 'local' {
  const at = argv.indexOf('--backend');
  const value = at >= 0 ? argv[at + 1] : argv.find((a) => a.startsWith('--backend='))?.slice('--backend='.length);
  if (value === undefined || value === 'dynalite') return 'dynalite';
  if (value === 'local') return 'local';
  throw new Error(`--backend must be dynalite or local, not ${value}`);
}

/**
 * Start the process with its data in `folder`; resolves once both endpoints listen. The caller
 * should protect the folder first (`protectDataDir`): the process inherits its umask.
 */
export async function startDynamoProcess(folder: string, backend = benchBackend()): Promise<DynamoProcess> {
  const child: ChildProcess = spawn(process.execPath, ['--import', 'tsx', fileURLToPath(import.meta.url), folder, backend], {
    // Its standard input is this process's lifeline: it closes when this process ends, however it ends.
    stdio: ['pipe', 'pipe', 'inherit'],
  });
  // Ended with this process on a `process.exit` (its signal handlers, a failed run) without waiting for the pipe.
  const stop = () => child.kill('SIGTERM');
  process.once('exit', stop);
  const line = await new Promise<string>((resolve, reject) => {
    child.once('exit', (code) => reject(new Error(`the DynamoDB process exited (${code}) before it listened`)));
    createInterface({ input: child.stdout! }).once('line', resolve);
  });
  const { connection, backend: running } = JSON.parse(line) as Pick<DynamoProcess, 'connection' | 'backend'>;
  return {
    connection,
    backend: running,
    pid: child.pid!,
    close: () =>
      new Promise<void>((resolve) => {
        process.off('exit', stop);
        if (child.exitCode !== null || child.signalCode !== null) return resolve();
        child.once('exit', () => resolve());
        child.kill('SIGTERM');
      }),
  };
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  // Whatever ends it, it ends through `process.exit`: the embedded DynamoDB's exit hooks stop the
  // DynamoDB Local JVM and remove dynalite's socket folder (`infra/local/`).
  const end = () => process.exit(0);
  process.on('SIGTERM', end);
  process.on('SIGINT', end);
  // The benchmark is gone (its end of the pipe closed): nothing will ever stop this process otherwise.
  process.stdin.on('close', end).resume();
  // The backend named, never one the parent's environment points at (its service sets DYNAMODB_ENDPOINT).
  const dynamo = await startEmbeddedDynamo({
    path: process.argv[2],
    backend: { kind: benchBackend(['--backend', process.argv[3] ?? 'dynalite']) },
  });
  process.stdout.write(JSON.stringify({ connection: dynamo.connection, backend: dynamo.backend }) + '\n');
}
