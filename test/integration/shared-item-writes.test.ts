/**
 * A rate-limited call must never touch a shared item: a 429 revoke-session that revoked the token
 * and then "undid" it would make a concurrent consume get 410, and a 429 MCP update_game that wrote
 * the game and then the old values back would overwrite another key's update. A write of a shared
 * item runs only once the call is counted (SECURITY.md, "What may be
 * speculative"): the recorder shows that a refused call never sends it.
 */
import { afterAll, beforeAll, describe, expect, test } from '@jest/globals';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { createTestKey, startOfNextMinute, UNLIMITED, type TestKey } from '../support/keys.js';
import { startStack, type Stack } from '../support/local-stack.js';
import { callTool, connectMcp, TOOL_SCOPES } from '../support/mcp.js';
import { RoundTripRecorder } from '../support/round-trips.js';
import { sessionsApi } from '../support/sessions-api.js';

let stack: Stack;
let minter: TestKey;
const recorder = new RoundTripRecorder();
beforeAll(async () => {
  // Its recorder sees every call of the service's client: the workers' are not this request's.
  stack = await startStack({ workers: false });
  recorder.attach(stack.services.client);
  minter = await createTestKey(stack, UNLIMITED);
});
afterAll(() => stack.stop());

/** A key whose minute window is already used up. */
async function exhaustedKey(settings: Record<string, unknown> = {}): Promise<TestKey> {
  startOfNextMinute(stack); // the whole test inside one minute window
  const key = await createTestKey(stack, { rate_limit_per_minute: 1, ...settings });
  const first = await sessionsApi(stack, () => key.raw).create({ game_id: 101 });
  expect(first.status).toBe(200);
  return key;
}

describe('a rate-limited call never touches a shared item', () => {
  test('revoke-session at 429: the token is never written, and its holder consumes it', async () => {
    const api = sessionsApi(stack, () => minter.raw);
    const token = await api.mint();
    const key = await exhaustedKey();
    const [revoked, consumed] = await Promise.all([
      recorder.measure(() => sessionsApi(stack, () => key.raw).revoke({ token })),
      api.consume({ token }),
    ]);
    expect(revoked.value.status).toBe(429);
    const revokes = revoked.calls.filter((c) => String(c.input.UpdateExpression ?? '').includes(':revoked'));
    expect(revokes).toEqual([]);
    expect(consumed.status).toBe(200);
  });

  test('MCP update_game at 429 never writes the game: a concurrent update by another key stands', async () => {
    startOfNextMinute(stack); // the whole test inside one minute window
    const limited = await createTestKey(stack, { rate_limit_per_minute: 10, mcp_scopes: TOOL_SCOPES });
    const other = await createTestKey(stack, { ...UNLIMITED, mcp_scopes: TOOL_SCOPES });
    const [a, b]: [Client, Client] = await Promise.all([connectMcp(stack, limited.raw), connectMcp(stack, other.raw)]);
    // Use up the limited key's minute once its client is connected (connecting is metered too).
    while ((await sessionsApi(stack, () => limited.raw).create({ game_id: 101 })).status !== 429);
    try {
      for (let round = 0; round < 5; round++) {
        const [refused, applied] = await Promise.all([
          recorder.measure(() =>
            callTool(a, 'update_game', { game_id: 102, require_session_token: round % 2 === 0 }).catch((error: unknown) => error),
          ),
          callTool(b, 'update_game', { game_id: 102, require_session_token: round % 2 === 1 }),
        ]);
        expect(String(refused.value)).toMatch(/Rate limit exceeded/);
        // The other key's update may fall inside the measurement (a slower backend): only a write of
        // the refused call's value counts.
        const refusedValue = round % 2 === 0;
        const writes = refused.calls.filter((c) => c.table === 'catalog' && c.action === 'UpdateItem');
        expect(writes.filter((c) => (c.input.ExpressionAttributeValues as Record<string, unknown>)[':v0'] === refusedValue)).toEqual([]);
        expect(applied.isError).toBeFalsy();
        expect((await stack.services.stores.catalog.getPlayable('game', 102))?.require_session_token).toBe(round % 2 === 1);
      }
    } finally {
      await Promise.all([a.close(), b.close()]);
    }
  });
});
