/**
 * The play session after a consumption: the page's script trades the consumed session for a signed
 * play cookie (POST /play/session), with which a refresh keeps playing while any other browser is
 * refused; and the "Require API Session Token" setting, turned on and off at the store.
 */
import { afterAll, beforeAll, describe, expect, test } from '@jest/globals';
import { randomUUID } from 'node:crypto';
import { PLAY_CATALOG_STALENESS_MS } from '../../shared/sessions/playable-cache.js';
import { startStack, type Stack } from '../support/local-stack.js';
import { consume, exchange, partner, statusOf, type Partner } from '../support/play-pages.js';

let stack: Stack;
let acme: Partner;
beforeAll(async () => {
  stack = await startStack();
  acme = await partner(stack);
});
afterAll(() => stack.stop());

const open = (path: string, cookie?: string) => stack.request(path, cookie ? { headers: { cookie } } : undefined);

/** Mint, consume as the page's script does, and get the play cookie. */
async function playedOnce(target: { game_id: number } | { stream_id: number } = { game_id: 101 }) {
  const token = await acme.mint(target);
  const sessionId = await consume(stack, token);
  const pass = await exchange(stack, { token, session_id: sessionId });
  return { token, sessionId, ...pass };
}

describe('POST /play/session: the play cookie for a session just consumed', () => {
  test('204 with a signed, HttpOnly, SameSite=Lax cookie for this game only (not Secure over http)', async () => {
    const { status, setCookie, sessionId } = await playedOnce();
    expect(status).toBe(204);
    expect(setCookie).toMatch(/^play_game_101=[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+; Path=\/; Max-Age=14400; HttpOnly; SameSite=Lax$/);
    const payload = JSON.parse(Buffer.from(setCookie!.split('=')[1]!.split('.')[0]!, 'base64url').toString('utf8'));
    expect(payload).toMatchObject({ sid: sessionId, kind: 'game', id: 101 });
  });

  test('a stream session gets the stream’s cookie', async () => {
    expect((await playedOnce({ stream_id: 201 })).setCookie).toMatch(/^play_stream_201=/);
  });

  test('refused for a token that is still active (the script must consume first)', async () => {
    const token = await acme.mint({ game_id: 101 });
    const pass = await exchange(stack, { token, session_id: 1 });
    expect(pass.status).toBe(403);
    expect(pass.setCookie).toBeUndefined();
    expect(await statusOf(stack, token)).toBe('active');
  });

  test('refused for another session id than the consumption returned', async () => {
    const token = await acme.mint({ game_id: 101 });
    const sessionId = await consume(stack, token);
    expect((await exchange(stack, { token, session_id: sessionId + 1 })).status).toBe(403);
  });

  test('refused when asked for more than a minute after the consumption', async () => {
    const token = await acme.mint({ game_id: 101 });
    const sessionId = await consume(stack, token);
    stack.clock.advance(61_000);
    try {
      expect((await exchange(stack, { token, session_id: sessionId })).status).toBe(403);
    } finally {
      stack.clock.advance(-61_000);
    }
  });

  test('unknown token: 404; malformed body: 400; no cookie either way', async () => {
    const unknown = await exchange(stack, { token: randomUUID(), session_id: 1 });
    expect(unknown.status).toBe(404);
    expect(unknown.setCookie).toBeUndefined();
    expect((await exchange(stack, { token: 'nope', session_id: 1 })).status).toBe(400);
    const notJson = await fetch(`${stack.baseUrl}/play/session`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: '{',
    });
    expect(notJson.status).toBe(400);
    expect(notJson.headers.get('content-type')).toBe('text/html; charset=utf-8');
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
