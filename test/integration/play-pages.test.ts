/**
 * Play pages over HTTP: every URL shape, every token situation (status and page content), the
 * scanner-safety of a plain GET, and the security headers.
 */
import { afterAll, beforeAll, describe, expect, test } from '@jest/globals';
import { randomUUID } from 'node:crypto';
import { PLAY_CATALOG_STALENESS_MS } from '../../shared/sessions/playable-cache.js';
import { capturedLogs, startStack, type Stack } from '../support/local-stack.js';
import { consume, partner, scriptNonce, statusOf, type Partner, type Target } from '../support/play-pages.js';

let stack: Stack;
let acme: Partner;
let globex: Partner;
beforeAll(async () => {
  stack = await startStack();
  [acme, globex] = await Promise.all([partner(stack), partner(stack, { org_id: 2, tier: 'enterprise' })]);
});
afterAll(() => stack.stop());

const open = (path: string, init?: RequestInit) => stack.request(path, init);
const NEW_LINK = /ask the site that sent you for a new link/i;

/** The five shapes on a playable that requires a token (acme game 101, stream 201). */
const REQUIRED: { path: string; target: Target; name: string; other: Target; kind: 'game' | 'stream' }[] = [
  { path: '/play/game/101', target: { game_id: 101 }, name: 'Acme Spin-to-Win', other: { game_id: 102 }, kind: 'game' },
  { path: '/game/101', target: { game_id: 101 }, name: 'Acme Spin-to-Win', other: { stream_id: 201 }, kind: 'game' },
  { path: '/embed/101', target: { game_id: 101 }, name: 'Acme Spin-to-Win', other: { game_id: 102 }, kind: 'game' },
  { path: '/play/stream/201', target: { stream_id: 201 }, name: 'Acme Live Quiz', other: { stream_id: 202 }, kind: 'stream' },
  { path: '/stream/acme/201', target: { stream_id: 201 }, name: 'Acme Live Quiz', other: { game_id: 101 }, kind: 'stream' },
];

/** The five shapes on playables with the setting off (acme game 102, stream 202). */
const OPEN = ['/play/game/102', '/game/102', '/embed/102', '/play/stream/202', '/stream/acme/202'];

describe('a valid token: the page plays, and only its script consumes', () => {
  test.each(REQUIRED)('$path', async ({ path, target, name }) => {
    const token = await acme.mint(target);
    const page = await open(`${path}?session_token=${token}`);
    expect(page.status).toBe(200);
    expect(page.body).toContain(`<title>${name}</title>`);
    // The play session (consume and cookie, one POST) is the page's script's, which carries the CSP nonce; the game is not loaded yet.
    const data = /<script type="application\/json" id="play-data">(.*?)<\/script>/.exec(page.body)?.[1];
    expect(JSON.parse(data!)).toMatchObject({
      token,
      sessionUrl: '/play/session',
      contentUrl: '/demo-game/index.html',
    });
    expect(page.body).toContain(`<script nonce="${scriptNonce(page.headers.get('content-security-policy'))}">`);
    expect(page.body).not.toContain('<iframe');
    // Scanner-safe: fetching the page (twice) leaves the token active.
    await open(`${path}?session_token=${token}`);
    expect(await statusOf(stack, token)).toBe('active');
  });

  test('the token is never written to the logs', async () => {
    const token = await acme.mint({ game_id: 101 });
    capturedLogs.length = 0;
    expect((await open(`/play/game/101?session_token=${token}`)).status).toBe(200);
    const lines = capturedLogs.join('');
    expect(lines).toContain('"operation":"play-game-page"');
    expect(lines).not.toContain(token);
  });
});

describe('the setting off: every shape plays with no token', () => {
  test.each(OPEN)('%s', async (path) => {
    const page = await open(path);
    expect(page.status).toBe(200);
    expect(page.body).toContain('<iframe id="game" src="/demo-game/index.html"');
    expect(page.body).not.toContain('id="play-data"');
  });

  test('a token on an open game is ignored, not consumed', async () => {
    const token = await acme.mint({ game_id: 102 });
    expect((await open(`/game/102?session_token=${token}`)).status).toBe(200);
    expect((await open('/game/102?session_token=garbage')).status).toBe(200);
    expect(await statusOf(stack, token)).toBe('active');
  });
});

/** Every token situation: how to make it, and the page it gets. */
const SITUATIONS: {
  situation: string;
  status: number;
  title: RegExp;
  token: (shape: (typeof REQUIRED)[number]) => Promise<string | undefined>;
  during?: number;
  /** What the page says to do, when it is not to ask for a new link. */
  todo?: RegExp;
}[] = [
  { situation: 'missing', status: 403, title: /This link is missing its session token/, token: async () => undefined },
  { situation: 'malformed', status: 400, title: /This link is damaged/, token: async () => 'not-a-token' },
  { situation: 'unknown', status: 404, title: /This link is not recognised/, token: async () => randomUUID() },
  {
    situation: 'consumed',
    status: 410,
    title: /This link has already been used/,
    token: async ({ target }) => {
      const token = await acme.mint(target);
      await consume(stack, token);
      return token;
    },
  },
  {
    situation: 'expired',
    status: 410,
    title: /This link has expired/,
    token: ({ target }) => acme.mint(target, { expires_in_minutes: 1 }),
    during: 61_000,
  },
  {
    situation: 'revoked',
    status: 410,
    title: /This link has been cancelled/,
    token: async ({ target }) => {
      const token = await acme.mint(target);
      await acme.revoke(token);
      return token;
    },
  },
  {
    situation: 'for another game or stream',
    status: 403,
    title: /This link is for a different (game|stream)/,
    token: ({ other }) => acme.mint(other),
  },
  {
    // A page names no player: the partner's app, which knows it, starts the game.
    situation: 'player-bound',
    status: 403,
    title: /Start this from the app that sent you/,
    token: ({ target }) => acme.mint(target, { player_ref: 'player-7' }),
    todo: /Go back to that app and start the (game|stream) there/,
  },
];

describe.each(SITUATIONS)('a $situation token: a friendly $status page', ({ status, title, token: make, during, todo }) => {
  test.each(REQUIRED)('$path', async (shape) => {
    const token = await make(shape);
    stack.clock.advance(during ?? 0);
    try {
      const page = await open(token === undefined ? shape.path : `${shape.path}?session_token=${token}`);
      expect(page.status).toBe(status);
      expect(page.body).toMatch(title);
      expect(page.body).toContain(`<p class="code">Error ${status}</p>`);
      expect(page.body).toMatch(todo ?? NEW_LINK);
      expect(page.body).not.toContain('id="play-data"');
      expect(page.body).not.toContain('<iframe');
      expect(page.headers.get('cache-control')).toBe('no-store');
    } finally {
      stack.clock.advance(-(during ?? 0));
    }
  });
});

describe('unknown games and streams', () => {
  test.each([
    ['/game/999', /Game not found/],
    ['/play/game/999', /Game not found/],
    ['/embed/abc', /Game not found/],
    ['/play/stream/999', /Stream not found/],
    ['/stream/acme/999', /Stream not found/],
    // The stream exists, but not in this org.
    ['/stream/globex/201', /Stream not found/],
  ])('%s: 404', async (path, title) => {
    const page = await open(path);
    expect(page.status).toBe(404);
    expect(page.body).toMatch(title);
    expect(page.body).toMatch(NEW_LINK);
  });

  test('the org slug of a stream page is case-insensitive', async () => {
    expect((await open('/stream/ACME/202')).status).toBe(200);
  });
});

describe('security headers and framing', () => {
  const baseline = (headers: Headers) => {
    expect(headers.get('x-content-type-options')).toBe('nosniff');
    expect(headers.get('referrer-policy')).toBe('no-referrer');
    expect(headers.get('cache-control')).toBe('no-store');
    expect(headers.get('content-type')).toBe('text/html; charset=utf-8');
  };

  test.each(['/play/game/102', '/game/102', '/play/stream/202', '/stream/acme/202', '/game/999', '/game/101'])(
    '%s may not be framed',
    async (path) => {
      const { headers } = await open(path);
      baseline(headers);
      expect(headers.get('x-frame-options')).toBe('DENY');
      expect(headers.get('content-security-policy')).toContain("frame-ancestors 'none'");
    },
  );

  test('the CSP allows scripts by nonce only, and frames only the game', async () => {
    const csp = (await open('/game/102')).headers.get('content-security-policy')!;
    expect(csp).toMatch(/^default-src 'none'; script-src 'nonce-[A-Za-z0-9+/=]{24}'; style-src 'nonce-/);
    expect(csp).toContain("frame-src 'self'");
    expect(csp).toContain("base-uri 'none'");
    const again = (await open('/game/102')).headers.get('content-security-policy')!;
    expect(scriptNonce(again)).not.toBe(scriptNonce(csp));
  });

  test('embed: no service chrome, framed by the org’s allowed origins (acme: any)', async () => {
    const page = await open('/embed/102');
    baseline(page.headers);
    expect(page.headers.get('x-frame-options')).toBeNull();
    expect(page.headers.get('content-security-policy')).toContain('frame-ancestors *;');
    expect(page.body).not.toContain('class="bar"');
    expect((await open('/game/102')).body).toContain('class="bar"');
  });

  test('embed: globex lists its origins; its refusals are framable too, so they show inside the partner’s iframe', async () => {
    const token = await globex.mint({ game_id: 301 });
    const page = await open(`/embed/301?session_token=${token}`);
    expect(page.status).toBe(200);
    expect(page.headers.get('content-security-policy')).toContain('frame-ancestors https://globex.example https://*.globex.example;');
    const refused = await open('/embed/301');
    expect(refused.status).toBe(403);
    expect(refused.headers.get('content-security-policy')).toContain('frame-ancestors https://globex.example https://*.globex.example;');
    expect(refused.body).not.toContain('class="bar"');
  });

  test('embed: an org without allowed origins may not be framed; origins that are not plain origins are dropped', async () => {
    expect((await open('/embed/501')).headers.get('x-frame-options')).toBe('DENY');
    const tiny = (await stack.services.stores.catalog.getOrg(3))!;
    await stack.services.stores.catalog.putOrg({
      ...tiny,
      allowed_origins: ['https://ok.example', 'https://evil.example; script-src *', 'javascript:x'],
    });
    try {
      // Pages see an org's allowed origins up to PLAY_CATALOG_STALENESS_MS late (documented).
      stack.clock.advance(PLAY_CATALOG_STALENESS_MS);
      const csp = (await open('/embed/501')).headers.get('content-security-policy')!;
      expect(csp).toContain('frame-ancestors https://ok.example;');
      expect(csp).not.toContain('evil');
    } finally {
      await stack.services.stores.catalog.putOrg(tiny);
      stack.clock.advance(PLAY_CATALOG_STALENESS_MS);
    }
  });
});

describe('errors the pages do not expect', () => {
  test('a game whose content URL is unusable: a 500 page that says nothing about the cause', async () => {
    const base = (await stack.services.stores.catalog.getPlayable('game', 102))!;
    await stack.services.stores.catalog.putPlayable({ ...base, id: 9001, content_url: 'javascript:alert(1)' });
    const page = await open('/game/9001');
    expect(page.status).toBe(500);
    expect(page.body).toContain('Something went wrong');
    expect(page.body).not.toContain('javascript:');
    expect(page.headers.get('x-frame-options')).toBe('DENY');
  });

  test('a page shape with another method: 405 from the front', async () => {
    expect((await open('/game/102', { method: 'POST' })).status).toBe(405);
  });
});
