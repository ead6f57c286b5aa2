/**
 * Someone holding a used link consumes a token of their own, reads its session id, and tries the
 * ids around it against the victim's consumed token to get a play cookie. Session ids are a keyed
 * permutation of a counter, so an id says nothing of its neighbours, and no request takes a session
 * id at all: the cookie comes only with the consumption.
 */
import { afterAll, beforeAll, describe, expect, test } from '@jest/globals';
import { startStack, type Stack } from '../support/local-stack.js';
import { consume, partner, startPlay, type Partner } from '../support/play-pages.js';

let stack: Stack;
let acme: Partner;
beforeAll(async () => {
  stack = await startStack();
  acme = await partner(stack);
});
afterAll(() => stack.stop());

describe('session ids cannot be derived from other ids', () => {
  test('the attack: with the victim’s used link, even the right session id gets no cookie', async () => {
    const victimToken = await acme.mint({ game_id: 101 });
    const victim = await startPlay(stack, { token: victimToken });
    expect(victim.status).toBe(200);
    const victimId = victim.json!.data.session_id as number;
    const ownId = await consume(stack, await acme.mint({ game_id: 101 }));
    // Within the old design's reach: the ids either side of the attacker's own, and the right one.
    const guesses = [-3, -2, -1, 1, 2, 3].map((d) => ownId + d).filter((id) => id > 0);
    expect(guesses).not.toContain(victimId);
    for (const session_id of [...guesses, victimId]) {
      const tried = await startPlay(stack, { token: victimToken, session_id });
      expect([tried.status, tried.setCookie]).toEqual([410, undefined]);
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

describe('a token yields one play cookie, to the request that consumed it', () => {
  test('every later request for it, whatever it carries, is refused (410) and sets nothing', async () => {
    const token = await acme.mint({ game_id: 101 });
    const first = await startPlay(stack, { token });
    expect(first.status).toBe(200);
    for (let i = 0; i < 6; i++) {
      const again = await startPlay(stack, { token, embed: i % 2 === 0, session_id: first.json!.data.session_id });
      expect([again.status, again.setCookie]).toEqual([410, undefined]);
    }
  });

  test('a token the partner consumed server-side never yields a cookie', async () => {
    const token = await acme.mint({ game_id: 101 });
    const session_id = await consume(stack, token);
    const late = await startPlay(stack, { token, session_id });
    expect([late.status, late.setCookie]).toEqual([410, undefined]);
  });
});
