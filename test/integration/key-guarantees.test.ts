/**
 * What a key's calls are promised whatever design counts them (docs/decisions.md#rate-limits,
 * SECURITY.md), under 50 calls at once, on the configured backend, each with the key already read
 * valid by this container (its calls take the warm path): REST and MCP share the key's windows
 * exactly; an allow-list changed in the middle of a burst refuses every call that starts after the
 * change answered; and a key that expires while this container remembers it valid writes nothing
 * from then on (no token, no count, no audit record written ahead to be taken back).
 */
import { afterAll, beforeEach, expect, test } from '@jest/globals';
import type { ApiKeyRecord } from '../../shared/keys/index.js';
import { describeWithStack } from '../support/describe-with-stack.js';
import { createTestKey, startOfNextMinute, tokensOfKey, windowCounts, type TestKey } from '../support/keys.js';
import { postMcp } from '../support/mcp.js';
import { RoundTripRecorder } from '../support/round-trips.js';

/** Calls at once. */
const AT_ONCE = 50;

describeWithStack('what a key’s calls are promised under concurrency', ({ stack, admin }) => {
  const recorder = new RoundTripRecorder();
  let detach: (() => void) | undefined;
  beforeEach(() => {
    detach ??= recorder.attach(stack.services.client);
    startOfNextMinute(stack);
  });
  afterAll(() => detach?.());

  /** A key of these settings, read valid by this container (one call made). */
  async function warmKey(settings: Partial<ApiKeyRecord>): Promise<TestKey> {
    const key = await createTestKey(stack, { rate_limit_per_minute: 1_000, rate_limit_per_day: 10_000, ...settings });
    expect((await create(key)).status).toBe(200);
    return key;
  }
  const create = (key: TestKey, game_id = 101) => stack.post('create-session', { game_id }, { 'x-api-key': key.raw });
  const createByMcp = (key: TestKey, id: number) =>
    postMcp(
      stack,
      { jsonrpc: '2.0', id, method: 'tools/call', params: { name: 'create_session', arguments: { game_id: 101 } } },
      { 'x-api-key': key.raw },
    );

  test('REST and MCP at once against a minute limit of 20: exactly 20 tokens in all, the rest refused, none a 5xx', async () => {
    const key = await warmKey({ rate_limit_per_minute: 21, mcp_scopes: ['mcp:sessions:write'] });
    const replies = await Promise.all(Array.from({ length: AT_ONCE }, (_, i) => (i % 2 === 0 ? create(key) : createByMcp(key, i))));
    expect(replies.filter((r) => r.status >= 500).map((r) => r.status)).toEqual([]);
    const rest = replies.filter((_, i) => i % 2 === 0);
    expect(rest.every((r) => r.status === 200 || r.status === 429)).toBe(true);
    expect(await tokensOfKey(stack, key.record.id)).toHaveLength(21);
    expect(await windowCounts(stack, key.record)).toEqual({ minute: 21, day: 21 });
  });

  test('an allow-list changed mid-burst: every call that starts after the change answered is 403, and mints nothing', async () => {
    const key = await warmKey({});
    const before = Array.from({ length: AT_ONCE / 2 }, () => create(key));
    const changed = await admin.update({ id: key.record.id, org_id: 1, allowed_game_ids: [102] });
    expect(changed.status).toBe(200);
    const minted = (await tokensOfKey(stack, key.record.id)).length;
    const after = await Promise.all(Array.from({ length: AT_ONCE / 2 }, () => create(key)));
    expect(after.map((r) => r.status)).toEqual(Array(AT_ONCE / 2).fill(403));
    // The calls in flight during the change: each either minted under the old list or was refused by the new one.
    for (const reply of await Promise.all(before)) expect([200, 403]).toContain(reply.status);
    const settled = (await tokensOfKey(stack, key.record.id)).length;
    expect(settled).toBeGreaterThanOrEqual(minted);
    expect(settled).toBeLessThanOrEqual(1 + AT_ONCE / 2);
    // The new list is in force: the game it allows mints.
    expect((await create(key, 102)).status).toBe(200);
  });

  test('a key that expires while this container remembers it valid: 50 calls at once are 401 and write nothing at all', async () => {
    const expiresAt = stack.clock.now() + 5_000;
    const key = await warmKey({ expires_at: new Date(expiresAt).toISOString() });
    stack.clock.advance(expiresAt - stack.clock.now() + 1);
    const { value, calls } = await recorder.measure(() => Promise.all(Array.from({ length: AT_ONCE }, () => create(key))));
    expect(value.map((r) => r.status)).toEqual(Array(AT_ONCE).fill(401));
    // Not a write of any kind: no token put ahead, no count, no audit record to rewrite.
    expect(calls.filter((c) => c.action !== 'GetItem' && c.action !== 'Query').map((c) => `${c.action} ${c.table}`)).toEqual([]);
    expect(await tokensOfKey(stack, key.record.id)).toHaveLength(1);
    expect(await windowCounts(stack, key.record)).toEqual({ minute: 1, day: 1 });
  });
});
