/**
 * The test environment that keeps `npm test` quiet (test/support/quiet-environment.js): a passing
 * test's console output is held back and dropped, a failing test's is printed, in order, and so is
 * what was printed outside any test when a hook fails.
 */
import { describe, expect, test } from '@jest/globals';
// @ts-expect-error: plain JavaScript (jest loads an environment without the TypeScript transform)
import QuietEnvironment from '../support/quiet-environment.js';

interface Printed {
  method: string;
  args: unknown[];
}

/** An environment over a console that records what it would print. */
function environment(): { env: { handleTestEvent(e: unknown, s: unknown): Promise<void> }; console: Console; printed: Printed[] } {
  const printed: Printed[] = [];
  const sink = Object.fromEntries(
    ['log', 'info', 'warn', 'error', 'debug'].map((method) => [method, (...args: unknown[]) => printed.push({ method, args })]),
  ) as unknown as Console;
  const env = new QuietEnvironment(
    { globalConfig: {}, projectConfig: { testEnvironmentOptions: {} } },
    { console: sink, docblockPragmas: {}, testPath: 'quiet-environment.test.ts' },
  );
  return { env, console: sink, printed };
}

const ROOT = { name: 'ROOT_DESCRIBE_BLOCK' };
const testNamed = (name: string, errors: unknown[] = []) => ({ name, parent: { name: 'block', parent: ROOT }, errors });
const state = { unhandledErrors: [] };

describe('the quiet test environment', () => {
  test("a passing test's output is never printed; a failing test's is, with the call's site", async () => {
    const previous = process.env.TEST_CONSOLE;
    delete process.env.TEST_CONSOLE;
    try {
      const { env, console: c, printed } = environment();
      const passing = testNamed('passes');
      await env.handleTestEvent({ name: 'test_start', test: passing }, state);
      c.warn('CDK warning of a passing test');
      await env.handleTestEvent({ name: 'test_done', test: passing }, state);
      expect(printed).toEqual([]);

      const failing = testNamed('fails', [new Error('boom')]);
      await env.handleTestEvent({ name: 'test_start', test: failing }, state);
      c.error('what the failing test logged');
      await env.handleTestEvent({ name: 'test_done', test: failing }, state);
      expect(printed).toHaveLength(1);
      expect(printed[0]).toMatchObject({
        method: 'error',
        args: ['what the failing test logged', expect.stringContaining('quiet-environment.test')],
      });
    } finally {
      if (previous !== undefined) process.env.TEST_CONSOLE = previous;
    }
  });

  test('a failed hook prints everything held, outside tests included', async () => {
    const previous = process.env.TEST_CONSOLE;
    delete process.env.TEST_CONSOLE;
    try {
      const { env, console: c, printed } = environment();
      c.log('at import');
      await env.handleTestEvent({ name: 'hook_failure' }, state);
      expect(printed.map((p) => p.args[0])).toEqual(['at import']);
    } finally {
      if (previous !== undefined) process.env.TEST_CONSOLE = previous;
    }
  });
});
