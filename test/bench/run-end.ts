/**
 * How a benchmark run ends when it fails or is interrupted: on SIGINT, SIGTERM, an uncaught
 * exception or an unhandled rejection, what the run started (the stack, its DynamoDB process, the
 * proxy) is stopped, then the process exits with the failure's code. A stop that hangs is given
 * {@link STOP_BOUND_MS}; the DynamoDB process also ends by itself once this process is gone, however
 * it ends (`dynamo-process.ts`).
 */

/** How long the stops may take before the process exits anyway. */
const STOP_BOUND_MS = 15_000;

const stops = new Set<() => Promise<unknown>>();

/** Run `stop` when the run fails or is interrupted (it must be harmless after the run stopped it itself). */
export function stopWhenRunFails(stop: () => Promise<unknown>): void {
  stops.add(stop);
}

/** Install the handlers (once, before anything is started). */
export function stopAllWhenRunFails(): void {
  let ending = false;
  const end = async (code: number, why: string, error?: unknown) => {
    if (ending) return;
    ending = true;
    const detail = error === undefined ? '' : `: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`;
    process.stderr.write(`bench: ${why}${detail}\nbench: stopping what the run started\n`);
    const bound = new Promise((done) => setTimeout(done, STOP_BOUND_MS));
    await Promise.race([Promise.allSettled([...stops].map((stop) => stop())), bound]);
    process.exit(code);
  };
  // Kept while the stops run: Ctrl-C signals the whole process group, and tsx relays it once more.
  process.on('SIGINT', () => void end(130, 'interrupted (SIGINT)'));
  process.on('SIGTERM', () => void end(143, 'terminated (SIGTERM)'));
  process.on('uncaughtException', (error) => void end(1, 'the run failed', error));
  process.on('unhandledRejection', (error) => void end(1, 'the run failed (unhandled rejection)', error));
}
