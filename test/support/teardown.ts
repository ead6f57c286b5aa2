/**
 * Teardown that cannot leave a server running: every step runs even when an earlier one fails (a
 * resource a failed `beforeAll` never started is simply absent), then the first failure is thrown.
 */

/** Run each stop step in turn; rethrow the first failure once all have run. */
export async function stopAll(...steps: readonly (() => unknown)[]): Promise<void> {
  const failures: unknown[] = [];
  for (const step of steps) {
    try {
      await step();
    } catch (error) {
      failures.push(error);
    }
  }
  if (failures.length > 0) throw failures[0];
}
