/** Calls of the session operations over HTTP, for the integration tests. */
import { expect } from '@jest/globals';
import type { Stack } from './local-stack.js';

export const API = '/api/org-api-keys';

/** What {@link Stack.request} answers. */
export type Reply = Awaited<ReturnType<Stack['request']>>;

/** The session operations of one stack, with `defaultKey()` as the credential (`null`: send none). */
export function sessionsApi(stack: Stack, defaultKey: () => string) {
  return {
    create: (body: unknown, apiKey: string | null = defaultKey()): Promise<Reply> =>
      stack.post('create-session', body, apiKey === null ? {} : { 'x-api-key': apiKey }),
    revoke: (body: unknown, apiKey: string | null = defaultKey()): Promise<Reply> =>
      stack.post('revoke-session', body, apiKey === null ? {} : { 'x-api-key': apiKey }),
    validate: (token: string): Promise<Reply> => stack.request(`${API}?action=validate-session&token=${encodeURIComponent(token)}`),
    consume: (body: unknown): Promise<Reply> => stack.post('consume-session', body),
    /** Create a token and return it (fails the test if creation fails). */
    mint: async (body: unknown = { game_id: 101 }, apiKey: string = defaultKey()): Promise<string> => {
      const reply = await stack.post('create-session', body, { 'x-api-key': apiKey });
      if (reply.status !== 200) throw new Error(`create-session answered ${reply.status}: ${JSON.stringify(reply.body)}`);
      return reply.body.data.token as string;
    },
  };
}

/**
 * The error envelope with this message, as a function answers it: the spec's `success` and `error`,
 * and the fields the service adds beside them (`code`, `request_id`; `param` when a field is at fault,
 * which the exact-shape tests of test/integration/errors.test.ts check).
 */
export const failure = (error: string) =>
  expect.objectContaining({ success: false, error, code: expect.any(String), request_id: expect.any(String) });
