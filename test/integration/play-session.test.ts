/**
 * The play session: the page's script sends one request (POST /play/session) that consumes the
 * page's token and sets a signed play cookie in the same answer, which carries the consumption's
 * data; with the cookie a refresh keeps playing while any other browser is refused; and the
 * "Require API Session Token" setting, turned on and off at the store.
 */
import { afterAll, beforeAll, describe, expect, test } from '@jest/globals';
import { randomUUID } from 'node:crypto';
import { PLAY_CATALOG_STALENESS_MS } from '../../shared/sessions/playable-cache.js';
import { startStack, type Stack } from '../support/local-stack.js';
import { consume, partner, startPlay, statusOf, type Partner } from '../support/play-pages.js';

let stack: Stack;
let acme: Partner;
beforeAll(async () => {
  stack = await startStack();
  acme = await partner(stack);
});
afterAll(() => stack.stop());

const open = (path: string, cookie?: string) => stack.request(path, cookie ? { headers: { cookie } } : undefined);

/** Mint, then start the play session as the page's script does (one request). */
async function playedOnce(target: { game_id: number } | { stream_id: number } = { game_id: 101 }, extra: Record<string, unknown> = {}) {
  const token = await acme.mint(target, extra);
  const started = await startPlay(stack, { token });
  return { token, sessionId: started.json?.data.session_id as number, ...started };
}

describe('POST /play/session: one request consumes the token and sets the play cookie', () => {
  test('200 with the consumption’s answer and a signed, HttpOnly, SameSite=Lax cookie for this game only (not Secure over http)', async () => {
    const { status, setCookie, json, contentType, token } = await playedOnce(
      { game_id: 101 },
      { external_ref: 'order-28', metadata: { n: 28 } },
    );
    expect(status).toBe(200);
    expect(contentType).toBe('application/json; charset=utf-8');
    // consume-session's answer, in its envelope.
    expect(json).toEqual({
      success: true,
      data: { session_id: expect.any(Number), org_id: 1, game_id: 101, stream_id: null, external_ref: 'order-28', metadata: { n: 28 } },
    });
    expect(await statusOf(stack, token)).toBe('consumed');
    expect(setCookie).toMatch(/^play_game_101=[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+; Path=\/; Max-Age=14400; HttpOnly; SameSite=Lax$/);
    const payload = JSON.parse(Buffer.from(setCookie!.split('=')[1]!.split('.')[0]!, 'base64url').toString('utf8'));
    // Bound to the session the token became (the id the token's record now holds) and to its game.
    const item = await stack.services.stores.tokens.get(token);
    expect(payload).toMatchObject({ sid: json!.data.session_id, kind: 'game', id: 101 });
    expect(item).toMatchObject({ status: 'consumed', session_id: json!.data.session_id, player_uuid: null });
    // Four hours from now (give or take the second the request took).
    expect(Math.abs(payload.exp - Math.floor(stack.clock.now() / 1000) - 4 * 3600)).toBeLessThanOrEqual(1);
  });

  test('a stream session gets the stream’s cookie; the embed shape asks for the iframe’s cookie (Lax over http)', async () => {
    expect((await playedOnce({ stream_id: 201 })).setCookie).toMatch(/^play_stream_201=/);
    const token = await acme.mint({ game_id: 101 });
    expect((await startPlay(stack, { token, embed: true })).setCookie).toMatch(/^play_game_101=.*; SameSite=Lax$/);
  });

  test('the token is spent: the same request again (this browser or any other) is 410 without a cookie', async () => {
    const { token } = await playedOnce();
    const again = await startPlay(stack, { token });
    expect(again.status).toBe(410);
    expect(again.setCookie).toBeUndefined();
    // Refusals are pages, like every refusal of the page function; the script reads only the status.
    expect(again.contentType).toBe('text/html; charset=utf-8');
  });

  test('a token the partner consumed (consume-session), revoked or let expire starts nothing: 410, no cookie', async () => {
    const consumed = await acme.mint({ game_id: 101 });
    await consume(stack, consumed);
    const revoked = await acme.mint({ game_id: 101 });
    await acme.revoke(revoked);
    const expired = await acme.mint({ game_id: 101 }, { expires_in_minutes: 1 });
    stack.clock.advance(61_000);
    try {
      for (const token of [consumed, revoked, expired]) {
        const refused = await startPlay(stack, { token });
        expect([token, refused.status, refused.setCookie]).toEqual([token, 410, undefined]);
      }
    } finally {
      stack.clock.advance(-61_000);
    }
    expect(await statusOf(stack, revoked)).toBe('revoked');
  });

  test('one pass per token: of 12 simultaneous requests with the same token exactly one gets the cookie', async () => {
    const token = await acme.mint({ game_id: 101 });
    const answers = await Promise.all(Array.from({ length: 12 }, () => startPlay(stack, { token })));
    expect(answers.map((a) => a.status).sort()).toEqual([200, ...Array(11).fill(410)]);
    expect(answers.filter((a) => a.setCookie !== undefined)).toHaveLength(1);
    const winner = answers.find((a) => a.status === 200)!;
    expect((await stack.services.stores.tokens.get(token))?.session_id).toBe(winner.json!.data.session_id);
  });

  test('unknown token: 410 (as consume-session); malformed body: 400; no cookie either way, nothing consumed', async () => {
    const unknown = await startPlay(stack, { token: randomUUID() });
    expect([unknown.status, unknown.setCookie]).toEqual([410, undefined]);
    const active = await acme.mint({ game_id: 101 });
    for (const body of [{ token: 'nope' }, {}, { token: active, embed: 'yes' }]) {
      const refused = await startPlay(stack, body);
      expect([refused.status, refused.setCookie]).toEqual([400, undefined]);
    }
    expect(await statusOf(stack, active)).toBe('active');
    const notJson = await fetch(`${stack.baseUrl}/play/session`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: '{',
    });
    expect(notJson.status).toBe(400);
    expect(notJson.headers.get('content-type')).toBe('text/html; charset=utf-8');
  });

  test('a cross-site form cannot post it: a body not sent as application/json is refused (400), even JSON text, and consumes nothing', async () => {
    const token = await acme.mint({ game_id: 101 });
    // What a form can send without a CORS preflight: urlencoded, multipart, and text/plain (which can carry JSON text).
    for (const [type, body] of [
      ['application/x-www-form-urlencoded', `token=${token}`],
      ['text/plain', JSON.stringify({ token })],
    ]) {
      const form = await fetch(`${stack.baseUrl}/play/session`, { method: 'POST', headers: { 'content-type': type! }, body });
      expect([type, form.status, form.headers.getSetCookie()]).toEqual([type, 400, []]);
      expect(await form.text()).toContain('Content-Type must be application/json');
    }
    expect(await statusOf(stack, token)).toBe('active');
  });

  test('a GET of it never consumes (only the script POSTs): 405, the token still active', async () => {
    const token = await acme.mint({ game_id: 101 });
    const get = await stack.request(`/play/session?token=${token}`);
    expect(get.status).toBe(405);
    expect(await statusOf(stack, token)).toBe('active');
  });
});

describe('a refresh with the cookie keeps playing; anyone else is refused', () => {
  test('the same URL with the cookie plays at once (nothing left to consume); without it: 410', async () => {
    const { token, cookie } = await playedOnce();
    const again = await open(`/play/game/101?session_token=${token}`, cookie);
    expect(again.status).toBe(200);
    expect(again.body).toContain('<iframe id="game" src="/demo-game/index.html"');
    expect(again.body).not.toContain('id="play-data"');
    for (const path of ['/game/101', '/embed/101']) expect((await open(`${path}?session_token=${token}`, cookie)).status).toBe(200);

    const elsewhere = await open(`/play/game/101?session_token=${token}`);
    expect(elsewhere.status).toBe(410);
    expect(elsewhere.body).toContain('This link has already been used');
  });

  test('the cookie is bound to its session: another consumed link of the same game is still refused', async () => {
    const first = await playedOnce();
    const second = await acme.mint({ game_id: 101 });
    await consume(stack, second);
    expect((await open(`/game/101?session_token=${second}`, first.cookie)).status).toBe(410);
    // Also one this browser started itself: each cookie opens its own session's link only.
    const third = await playedOnce();
    expect((await open(`/game/101?session_token=${third.token}`, first.cookie)).status).toBe(410);
    expect((await open(`/game/101?session_token=${third.token}`, third.cookie)).status).toBe(200);
  });

  test('a tampered or foreign cookie is worthless', async () => {
    const { token, cookie } = await playedOnce();
    const [name, value] = cookie!.split('=') as [string, string];
    const [payload, mac] = value.split('.') as [string, string];
    const forged = Buffer.from(JSON.stringify({ ...JSON.parse(Buffer.from(payload, 'base64url').toString()), exp: 9e9 })).toString(
      'base64url',
    );
    for (const bad of [`${name}=${forged}.${mac}`, `${name}=${payload}.${mac.slice(0, -2)}AA`, `${name}=garbage`]) {
      expect((await open(`/game/101?session_token=${token}`, bad)).status).toBe(410);
    }
    // A stream's cookie does not open a game.
    const stream = await playedOnce({ stream_id: 201 });
    expect((await open(`/play/stream/201?session_token=${stream.token}`, stream.cookie)).status).toBe(200);
    expect((await open(`/game/101?session_token=${token}`, stream.cookie)).status).toBe(410);
  });

  test('the play session ends after four hours', async () => {
    const { token, cookie } = await playedOnce();
    stack.clock.advance(4 * 3600_000 + 1000);
    try {
      expect((await open(`/game/101?session_token=${token}`, cookie)).status).toBe(410);
    } finally {
      stack.clock.advance(-(4 * 3600_000 + 1000));
    }
  });
});

describe('"Require API Session Token", turned on and off at the store', () => {
  /** Pages may see the old setting for PLAY_CATALOG_STALENESS_MS (documented): step past the bound. */
  const pastStaleness = () => stack.clock.advance(PLAY_CATALOG_STALENESS_MS);

  test('on: a game that played with no token now asks for one; off again: it plays', async () => {
    const { catalog } = stack.services.stores;
    expect((await open('/game/102')).status).toBe(200);
    expect((await catalog.setRequireSessionToken('game', 102, true))?.require_session_token).toBe(true);
    try {
      pastStaleness();
      const refused = await open('/game/102');
      expect(refused.status).toBe(403);
      expect(refused.body).toContain('This link is missing its session token');
    } finally {
      await catalog.setRequireSessionToken('game', 102, false);
    }
    pastStaleness();
    expect((await open('/game/102')).status).toBe(200);
  });

  test('the staleness bound is honoured: within it a page may show the old setting, past it never', async () => {
    const { catalog } = stack.services.stores;
    pastStaleness();
    expect((await open('/game/102')).status).toBe(200); // read now: remembered for the bound
    await catalog.setRequireSessionToken('game', 102, true);
    try {
      // 3 s inside the bound: the write and the next page load must take less than that in real time.
      stack.clock.advance(PLAY_CATALOG_STALENESS_MS - 3_000);
      expect((await open('/game/102')).status).toBe(200); // the old setting, within the bound
      stack.clock.advance(3_000);
      expect((await open('/game/102')).status).toBe(403); // past it: the new one
    } finally {
      await catalog.setRequireSessionToken('game', 102, false);
      pastStaleness();
    }
  });

  test('off on a game that required a token: plays with none, and leaves a given token unused', async () => {
    const { catalog } = stack.services.stores;
    const token = await acme.mint({ stream_id: 201 });
    await catalog.setRequireSessionToken('stream', 201, false);
    try {
      pastStaleness();
      const page = await open(`/stream/acme/201?session_token=${token}`);
      expect(page.status).toBe(200);
      expect(page.body).toContain('<iframe id="game"');
      expect(await statusOf(stack, token)).toBe('active');
    } finally {
      await catalog.setRequireSessionToken('stream', 201, true);
    }
    pastStaleness();
    expect((await open('/stream/acme/201')).status).toBe(403);
  });

  test('an unknown game cannot be switched', async () => {
    expect(await stack.services.stores.catalog.setRequireSessionToken('game', 999, true)).toBeUndefined();
  });
});
