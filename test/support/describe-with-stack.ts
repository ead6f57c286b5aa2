/**
 * A describe block with its own local stack: started (with the admin API of the demo org's admin
 * on it) before the block's first test, stopped after its last. The block's body is declared
 * before the stack starts, so it is handed stand-ins that read the started stack and admin API
 * whenever a test or hook uses them.
 */
import { afterAll, beforeAll, describe } from '@jest/globals';
import { adminApi, type AdminApi } from './admin-api.js';
import { startStack, type Stack } from './local-stack.js';

/** What a block's tests use: its stack, and the admin API on it as `acme-admin`. */
export interface StackContext {
  readonly stack: Stack;
  readonly admin: AdminApi;
}

/** `describe(name, body)` with one stack for the whole block (one file's tests, usually); `workers: true` runs its workers. */
export function describeWithStack(name: string, body: (context: StackContext) => void, options: { readonly workers?: boolean } = {}): void {
  describe(name, () => {
    let started: StackContext | undefined;
    beforeAll(async () => {
      const stack = await startStack(options);
      started = { stack, admin: adminApi(stack) };
    });
    afterAll(() => started?.stack.stop());
    body({ stack: lateBound(() => started?.stack), admin: lateBound(() => started?.admin) });
  });
}

/** An object whose every property is read from what `current()` returns by then. */
function lateBound<T extends object>(current: () => T | undefined): T {
  return new Proxy({} as T, {
    get: (_, property) => {
      const target = current();
      if (!target) throw new Error(`read .${String(property)} of the stack before the block's beforeAll started it`);
      return Reflect.get(target, property);
    },
  });
}
