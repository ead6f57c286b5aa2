/**
 * Player-bound tokens over HTTP, on the embedded DynamoDB's real conditional writes: create-session's
 * `player_ref` and its bounds; consume-session of a bound token with another player or none (403
 * `player_mismatch`, the token still active and its item unchanged), with its player (200); 50
 * consumes at once with mixed players (one 200, its player's); unbound tokens as before; validate's
 * `player_bound` without the ref; the play page's `POST /play/session` refusing a bound token.
 */
import { GetCommand } from '@aws-sdk/lib-dynamodb';
import { afterAll, beforeAll, describe, expect, test } from '@jest/globals';
import { createTestKey, UNLIMITED } from '../support/keys.js';
import { startStack, type Stack } from '../support/local-stack.js';
import { startPlay } from '../support/play-pages.js';
import { API, sessionsApi } from '../support/sessions-api.js';

let stack: Stack;
let api: ReturnType<typeof sessionsApi>;
beforeAll(async () => {
  stack = await startStack();
  const partner = await createTestKey(stack, UNLIMITED);
  api = sessionsApi(stack, () => partner.raw);
});
afterAll(() => stack.stop());

const PLAYER = 'player-a-7f3c';
const storedToken = async (token: string) =>
  (await stack.services.client.send(new GetCommand({ TableName: stack.tableNames.tokens, Key: { token }, ConsistentRead: true }))).Item;

/** The refusal of a consumption for another player (or none), as consume-session answers it. */
const mismatch = (reply: Awaited<ReturnType<typeof api.consume>>) => {
  expect(reply.status).toBe(403);
  expect(reply.body).toEqual({
    success: false,
    error: 'This session token is bound to another player',
    code: 'player_mismatch',
    request_id: reply.headers.get('x-request-id'),
  });
};

/** A validate answer of a bound token that is still active: it says bound, and never whom to. */
async function expectActiveAndBound(token: string) {
  const reply = await api.validate(token);
  expect(reply.status).toBe(200);
  expect(reply.body.data).toMatchObject({ valid: true, status: 'active', player_bound: true });
  expect(Object.keys(reply.body.data)).not.toContain('player_ref');
  expect(JSON.stringify(reply.body)).not.toContain(PLAYER);
}

describe('a bound token', () => {
  test('another player: 403 player_mismatch, and the token is still active with its item unchanged', async () => {
    const token = await api.mint({ game_id: 101, player_ref: PLAYER });
    const before = await storedToken(token);
    expect(before).toMatchObject({ status: 'active', player_ref: PLAYER });
    mismatch(await api.consume({ token, player_uuid: 'player-b' }));
    // Nothing written: no player, no session id, no consumption time.
    expect(await storedToken(token)).toEqual(before);
    await expectActiveAndBound(token);
  });

  test('no player (absent or null): 403 player_mismatch, still active', async () => {
    const token = await api.mint({ game_id: 101, player_ref: PLAYER });
    mismatch(await api.consume({ token }));
    mismatch(await api.consume({ token, player_uuid: null }));
    // A player that differs only by case or spaces is another player: compared byte for byte.
    mismatch(await api.consume({ token, player_uuid: PLAYER.toUpperCase() }));
    mismatch(await api.consume({ token, player_uuid: ` ${PLAYER}` }));
    await expectActiveAndBound(token);
  });

  test('its player: 200, then 410 for anyone (its player included), and validate says consumed', async () => {
    const token = await api.mint({ stream_id: 201, external_ref: 'order-9', player_ref: PLAYER });
    const wrong = await api.consume({ token, player_uuid: 'player-b' });
    expect(wrong.status).toBe(403);
    const reply = await api.consume({ token, player_uuid: PLAYER });
    expect(reply.status).toBe(200);
    expect(reply.body.data).toEqual({
      session_id: expect.any(Number),
      org_id: 1,
      game_id: null,
      stream_id: 201,
      external_ref: 'order-9',
      metadata: null,
    });
    expect(await storedToken(token)).toMatchObject({ status: 'consumed', player_uuid: PLAYER, player_ref: PLAYER });
    // Used is used: 410 for every later call, the wrong player's too (gone outranks another player).
    for (const player_uuid of [PLAYER, 'player-b', undefined]) expect((await api.consume({ token, player_uuid })).status).toBe(410);
    expect((await api.validate(token)).body.data).toMatchObject({ valid: false, status: 'consumed', player_bound: true });
  });

  test('expired or revoked: 410 whatever the player', async () => {
    const expiring = await api.mint({ game_id: 101, player_ref: PLAYER, expires_in_minutes: 1 });
    const revoked = await api.mint({ game_id: 101, player_ref: PLAYER });
    expect((await api.revoke({ token: revoked })).status).toBe(200);
    stack.clock.advance(61_000);
    try {
      for (const token of [expiring, revoked]) {
        for (const player_uuid of [PLAYER, 'player-b', undefined]) expect((await api.consume({ token, player_uuid })).status).toBe(410);
      }
    } finally {
      stack.clock.advance(-61_000);
    }
  });

  test('50 consumes at once with mixed players: exactly one 200, its player’s; the others 403 or 410', async () => {
    const token = await api.mint({ game_id: 101, player_ref: PLAYER });
    const players = Array.from({ length: 50 }, (_, i) => (i % 5 === 0 ? PLAYER : i % 5 === 1 ? undefined : `player-${i}`));
    const replies = await Promise.all(players.map((player_uuid) => api.consume({ token, player_uuid })));
    const statuses = replies.map((r, i) => ({ status: r.status, bound: players[i] === PLAYER }));
    const won = statuses.filter((s) => s.status === 200);
    expect(won).toEqual([{ status: 200, bound: true }]);
    // Another player is refused as such until the token is used, and as gone after; its player then 410.
    for (const s of statuses.filter((x) => x.status !== 200)) {
      expect(s.bound ? [410] : [403, 410]).toContain(s.status);
    }
    const winner = replies.find((r) => r.status === 200)!;
    expect(await storedToken(token)).toMatchObject({ status: 'consumed', player_uuid: PLAYER, session_id: winner.body.data.session_id });
  });
});

describe('an unbound token', () => {
  test('any player or none consumes it, as before; validate says player_bound false', async () => {
    for (const consume of [{}, { player_uuid: null }, { player_uuid: 'anyone' }]) {
      const token = await api.mint({ game_id: 101, player_ref: null });
      expect((await api.validate(token)).body.data).toMatchObject({ valid: true, player_bound: false });
      const reply = await api.consume({ token, ...consume });
      expect(reply.status).toBe(200);
      expect((await storedToken(token))!).not.toHaveProperty('player_ref');
    }
  });
});

describe('create-session: player_ref', () => {
  const expectInvalid = async (player_ref: unknown, message: string) => {
    const reply = await api.create({ game_id: 101, player_ref });
    expect(reply.status).toBe(400);
    expect(reply.body).toEqual({
      success: false,
      error: `player_ref: ${message}`,
      code: 'invalid_input',
      param: 'player_ref',
      request_id: reply.headers.get('x-request-id'),
    });
  };

  test('1 to 128 printable ASCII characters are kept; the answer does not repeat it', async () => {
    for (const ref of ['p'.repeat(128), ' ', '~', 'a "quoted" \\ <ref>', '1']) {
      const reply = await api.create({ game_id: 101, player_ref: ref });
      expect(reply.status).toBe(200);
      expect(reply.body.data).not.toHaveProperty('player_ref');
      expect(await storedToken(reply.body.data.token)).toMatchObject({ player_ref: ref });
    }
  });

  test('129 characters, empty, not printable ASCII, or not a string: 400 with the envelope naming the field', async () => {
    await expectInvalid('p'.repeat(129), 'must be at most 128 characters');
    await expectInvalid('', 'must not be empty');
    for (const ref of ['joueur-é', 'tab\there', 'new\nline', '🎮', '\u0000'])
      await expectInvalid(ref, 'must be printable ASCII (space to ~)');
    await expectInvalid(42, 'must be a string');
  });
});

describe('the play page', () => {
  test('POST /play/session refuses a bound token: a 403 page saying the partner’s app starts it, no cookie, the token still active', async () => {
    const token = await api.mint({ game_id: 101, player_ref: PLAYER });
    const res = await fetch(`${stack.baseUrl}/play/session`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ token }),
    });
    expect(res.status).toBe(403);
    expect(res.headers.get('content-type')).toMatch(/^text\/html/);
    expect(res.headers.getSetCookie()).toEqual([]);
    expect(await res.text()).toContain('can only be started from the app that gave you this link');
    await expectActiveAndBound(token);
    // Its player still consumes it, through the partner API.
    expect((await api.consume({ token, player_uuid: PLAYER })).status).toBe(200);
  });

  test('an unbound token still plays there', async () => {
    const token = await api.mint({ game_id: 101 });
    expect((await startPlay(stack, { token })).status).toBe(200);
  });

  test('the page itself refuses a bound token without writing it', async () => {
    const token = await api.mint({ game_id: 101, player_ref: PLAYER });
    const page = await stack.request(`/play/game/101?session_token=${token}`);
    expect(page.status).toBe(403);
    expect(page.body).toContain('Start this from the app that sent you');
    expect(page.body).not.toContain('id="play-data"');
    expect((await stack.request(`${API}?action=validate-session&token=${token}`)).body.data.status).toBe('active');
  });
});
