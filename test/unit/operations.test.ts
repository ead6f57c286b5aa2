/**
 * One declaration per operation: each function file's handler is built from the declarations of
 * the operations it serves (its route module, `shared/<feature>/routes/`), and they are exactly the routes table's rows
 * whose `function` names that file. A function file is named after its operation, unless it serves
 * several (the play pages).
 */
import { describe, expect, test } from '@jest/globals';
import { readdirSync } from 'node:fs';
import { API_PATH, defineOperation, type RouteDefinition } from '../../shared/platform/route.js';
import { routes } from '../../shared/routes.js';
import { workers } from '../../shared/workers.js';

const FUNCTIONS_DIR = new URL('../../functions/', import.meta.url);
/** The workers' functions (shared/workers.ts): no client calls them, so they serve no route. */
const workerFunctions = new Set(workers.map((worker) => worker.function));
const all = readdirSync(FUNCTIONS_DIR)
  .filter((file) => file.endsWith('.ts'))
  .map((file) => file.slice(0, -'.ts'.length))
  .sort();
const files = all.filter((name) => !workerFunctions.has(name));

describe('functions and their operations', () => {
  test.each(files)('functions/%s.ts serves exactly its rows of the routes table, and the very declarations', async (name) => {
    const { handler } = (await import(new URL(`${name}.ts`, FUNCTIONS_DIR).href)) as {
      handler: { operations?: readonly RouteDefinition[] };
    };
    const rows = routes.filter((route) => route.function === name);
    expect(rows.length).toBeGreaterThan(0);
    expect(handler.operations?.map((operation) => operation.operation)).toEqual(rows.map((route) => route.operation));
    handler.operations!.forEach((operation, i) => expect(operation).toBe(rows[i]));
  });

  test('every function of the routes table has its file', () => {
    expect([...new Set(routes.map((route) => route.function))].sort()).toEqual(files);
  });

  test('a worker’s function file exports its handler', async () => {
    for (const name of all.filter((file) => workerFunctions.has(file))) {
      const { handler } = (await import(new URL(`${name}.ts`, FUNCTIONS_DIR).href)) as { handler: unknown };
      expect([name, typeof handler]).toEqual([name, 'function']);
    }
  });

  test('a function file is named after its operation, unless it serves several', () => {
    for (const name of files) {
      const served = routes.filter((route) => route.function === name).map((route) => route.operation);
      if (served.length === 1) expect(served).toEqual([name]);
    }
  });
});

describe('a declaration', () => {
  const declared = {
    operation: 'ping',
    function: 'ping',
    data: {},
    method: 'GET',
    path: API_PATH,
    auth: 'none',
    capacity: 'meta',
    summary: 'ping',
  } as const;

  test('names the parts of the services its function builds (the type check refuses one without)', () => {
    // `npm run typecheck` fails when this stops being an error: `parts` decides the function's environment.
    // @ts-expect-error -- `parts` is missing
    expect(defineOperation(declared)).toBe(declared);
    // @ts-expect-error -- `http` is every function's, not an operation's
    expect(defineOperation({ ...declared, parts: ['http'] }).parts).toEqual(['http']);
    expect(defineOperation({ ...declared, parts: ['sessions'] }).parts).toEqual(['sessions']);
  });
});
