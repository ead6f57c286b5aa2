/**
 * The setup of the create-session files (`test/integration/create-session*.test.ts`): a stack with
 * a partner's key of org 1 (like the demo key) whose limits the files' calls never meet, and the
 * session operations presenting it by default.
 */
import { createTestKey, UNLIMITED, type TestKey } from './keys.js';
import { startStack, type Stack } from './local-stack.js';
import { sessionsApi } from './sessions-api.js';

/** A started stack, the partner's key and the session operations with that key. */
export interface PartnerStack {
  readonly stack: Stack;
  readonly partner: TestKey;
  readonly api: ReturnType<typeof sessionsApi>;
}

/** Start a stack and create the partner's key (the caller stops the stack). */
export async function startPartnerStack(): Promise<PartnerStack> {
  const stack = await startStack();
  const partner = await createTestKey(stack, UNLIMITED);
  return { stack, partner, api: sessionsApi(stack, () => partner.raw) };
}
