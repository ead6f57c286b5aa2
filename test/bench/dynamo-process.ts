/**
 * The benchmark's DynamoDB in a process of its own: the embedded dynalite (or DynamoDB Local with
 * `--backend local`, its JVM a child of that process). In the service's
 * process the emulator's CPU work would serialize calls the code issues in parallel (a 2-stage
 * create with 3 calls in its second stage measured like 4 stages); here it runs on the other core,
 * as DynamoDB runs on its own machines, so an operation's latency counts its round trips.
 *
 * Run as a script (`node --import tsx dynamo-process.ts <folder>`), it prints one JSON line with
 * how to reach it and serves until killed; {@link startDynamoProcess} does that from the benchmark.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { startEmbeddedDynamo, type DynamoConnection, type EmbeddedDynamo } from '../../infra/local/dynamo.js';

/** How to reach the DynamoDB process (dynalite: its Unix socket), and which engine serves it. */
export interface DynamoProcess {
  readonly connection: DynamoConnection;
  readonly backend: EmbeddedDynamo['backend'];
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

/** Start the process with its data in `folder`; resolves once both endpoints listen. */
export async function startDynamoProcess(folder: string, backend = benchBackend()): Promise<DynamoProcess> {
  const child: ChildProcess = spawn(process.execPath, ['--import', 'tsx', fileURLToPath(import.meta.url), folder, backend], {
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const line = await new Promise<string>((resolve, reject) => {
    child.once('exit', (code) => reject(new Error(`the DynamoDB process exited (${code}) before it listened`)));
    createInterface({ input: child.stdout! }).once('line', resolve);
  });
  const { connection, backend: running } = JSON.parse(line) as Pick<DynamoProcess, 'connection' | 'backend'>;
  return {
    connection,
    backend: running,
    close: () =>
      new Promise<void>((resolve) => {
        if (child.exitCode !== null) return resolve();
        child.once('exit', () => resolve());
        child.kill();
      }),
  };
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  // The backend named, never one the parent's environment points at (its service sets DYNAMODB_ENDPOINT).
  const dynamo = await startEmbeddedDynamo({
    path: process.argv[2],
    backend: { kind: benchBackend(['--backend', process.argv[3] ?? 'dynalite']) },
  });
  process.stdout.write(JSON.stringify({ connection: dynamo.connection, backend: dynamo.backend }) + '\n');
  process.on('SIGTERM', () => process.exit(0));
}
