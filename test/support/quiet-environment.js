/**
 * The test environment of every tier: Node's, with the console of a test file held back and shown
 * only for what failed. A passing run prints jest's own lines and nothing else: no CDK validation
 * reports (the infra tier synthesizes stacks whose warnings are the subject of some tests), no
 * expected error lines. When a test fails, what the console received during it, and what it
 * received outside any test (at import, in hooks) and was not shown yet, are printed as usual
 * (jest's "Console" block of the file), in order. A failed hook or an error outside tests shows
 * everything held. `TEST_CONSOLE=all` shows every line as it comes, as plain jest does.
 *
 * Plain JavaScript: jest loads a test environment without the TypeScript transform.
 */
import { TestEnvironment } from 'jest-environment-node';
import process from 'node:process';

/** The console methods that print. */
const PRINTING = ['log', 'info', 'warn', 'error', 'debug', 'trace', 'dir', 'dirxml', 'table', 'group', 'groupCollapsed', 'groupEnd'];

/** The methods whose arguments are printed as text, where the call's site can be added. */
const TEXT = new Set(['log', 'info', 'warn', 'error', 'debug']);

/** A test's name as jest reports it: its describe blocks and its own. */
function fullName(test) {
  const names = [];
  for (let block = test; block && block.name !== 'ROOT_DESCRIBE_BLOCK'; block = block.parent) names.unshift(block.name);
  return names.join(' › ');
}

export default class QuietEnvironment extends TestEnvironment {
  /** Console calls held: `test` names the test running then (undefined: outside any test). */
  held = [];
  /** The running test's name. */
  current = undefined;
  /** The console's own methods, which print (to jest's per-file buffer). */
  printing = {};

  constructor(config, context) {
    super(config, context);
    if (process.env.TEST_CONSOLE === 'all') return;
    const target = context.console;
    for (const method of PRINTING) {
      if (typeof target[method] !== 'function') continue;
      this.printing[method] = target[method].bind(target);
      target[method] = (...args) => {
        // Where the call was made: shown with it, since jest's own frame will point here.
        const site = new Error().stack?.split('\n')[2]?.trim();
        this.held.push({ test: this.current, method, args, site });
      };
    }
  }

  async handleTestEvent(event, state) {
    switch (event.name) {
      case 'test_start':
        this.current = fullName(event.test);
        break;
      case 'test_done': {
        const name = this.current;
        this.current = undefined;
        if (event.test.errors.length > 0) this.show((call) => call.test === name || call.test === undefined);
        else this.held = this.held.filter((call) => call.test !== name);
        break;
      }
      case 'hook_failure':
        this.show(() => true);
        break;
      case 'run_finish':
        // Errors outside any test (a describe block that threw, an unhandled rejection).
        if (state.unhandledErrors.length > 0) this.show(() => true);
        this.held = [];
        break;
    }
  }

  /** Print the held calls `which` selects, in the order they were made. */
  show(which) {
    const shown = this.held.filter(which);
    this.held = this.held.filter((call) => !which(call));
    for (const call of shown) {
      const args = TEXT.has(call.method) && call.site ? [...call.args, `\n(${call.site})`] : call.args;
      this.printing[call.method]?.(...args);
    }
  }
}
