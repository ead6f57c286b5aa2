/**
 * Issue 13, finding 1, replayed: someone holding a used link consumes a token of their own, reads
 * its session id, and tries the ids around it against the victim's consumed token to get a play
 * cookie. Session ids were sequential (hi/lo blocks, released ids reused): 3 to 7 tries sufficed.
 * Now ids are a keyed permutation of the counter and the exchange takes 5 attempts per token.
 */
import { afterAll, beforeAll, describe, expect, test } from '@jest/globals';
import { MAX_EXCHANGE_ATTEMPTS } from '../../shared/play/play.js';
import { startStack, type Stack } from '../support/local-stack.js';
import { consume, exchange, partner, type Partner } from '../support/play-pages.js';

let stack: Stack;
let acme: Partner;
beforeAll(async () => {
  stack = await startStack();
  acme = await partner(stack);
});
afterAll(() => stack.stop());

describe('session ids cannot be derived from other ids', () => {
  test('the attack: neighbours of the attacker’s own id never open the victim’s session', async () => {
    const victimToken = await acme.mint({ game_id: 101 });
    const victimId = await consume(stack, victimToken);
    const ownId = await consume(stack, await acme.mint({ game_id: 101 }));
    // Within the old design's reach: the ids either side of the attacker's own.
    const guesses = [-3, -2, -1, 1, 2, 3].map((d) => ownId + d).filter((id) => id > 0);
    expect(guesses).not.toContain(victimId);
    for (const session_id of guesses.slice(0, MAX_EXCHANGE_ATTEMPTS)) {
      expect((await exchange(stack, { token: victimToken, session_id })).status).toBe(403);
    }
  });

  test('ids of consecutive consumptions are spread over 2^52, not a counter (no volume, no neighbours)', async () => {
    const ids: number[] = [];
    for (let i = 0; i < 40; i++) ids.push(await consume(stack, await acme.mint({ game_id: 101 })));
    expect(new Set(ids).size).toBe(ids.length);
    for (const id of ids) expect(Number.isSafeInteger(id) && id >= 1 && id <= 2 ** 52).toBe(true);
    const gaps = ids.slice(1).map((id, i) => Math.abs(id - ids[i]!));
    // Sequential ids (or ids from hi/lo blocks) differ by 1 to a block size; two random 52-bit values
    // differ by under 2^20 once in 2^31, so this can't fail by chance (2^40 failed once in ~50 runs).
    expect(gaps.filter((g) => g < 2 ** 20)).toHaveLength(0);
    // Not even sorted: a counter shows through as a rising sequence.
    expect([...ids].sort((a, b) => a - b)).not.toEqual(ids);
  });
});

describe('the play-cookie exchange bounds its attempts per token', () => {
  test(`after ${MAX_EXCHANGE_ATTEMPTS} attempts even the right session id is refused`, async () => {
    const token = await acme.mint({ game_id: 101 });
    const sessionId = await consume(stack, token);
    for (let i = 1; i <= MAX_EXCHANGE_ATTEMPTS; i++) {
      expect((await exchange(stack, { token, session_id: sessionId + i })).status).toBe(403);
    }
    const late = await exchange(stack, { token, session_id: sessionId });
    expect(late.status).toBe(403);
    expect(late.setCookie).toBeUndefined();
  });

  test('the page’s own exchange (and a retry of it) still works', async () => {
    const token = await acme.mint({ game_id: 101 });
    const session_id = await consume(stack, token);
    expect((await exchange(stack, { token, session_id })).status).toBe(204);
    expect((await exchange(stack, { token, session_id })).status).toBe(204);
  });

  test('an unknown token is 404 and counts nothing', async () => {
    const reply = await exchange(stack, { token: '8d7c2c1e-2f7a-4c55-9a55-5b1d6f0c0a11', session_id: 1 });
    expect(reply.status).toBe(404);
  });
});
