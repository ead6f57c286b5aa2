/**
 * The play pages in a real browser (the system's Chromium, else `@sparticuz/chromium`'s, driven by
 * playwright-core; skipped with its reason when neither starts: `../support/browser.ts`): a tokened link
 * waits for a person's click (or key press) on Play, whatever a scanner's script does meanwhile, then
 * plays once, a refresh keeps playing, another browser is refused; an open game plays with no
 * token; embed pages start at once inside a partner's iframe while the other shapes refuse to be framed.
 * Screenshots go to test-output/.
 */
import { afterAll, beforeAll, describe, expect, test } from '@jest/globals';
import { mkdirSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Browser, Page, Route } from 'playwright-core';
import { launchBrowser } from '../support/browser.js';
import { expectAccessible } from '../support/console-page.js';
import { startStack, type Stack } from '../support/local-stack.js';
import { partner, statusOf, type Partner } from '../support/play-pages.js';
import { stopAll } from '../support/teardown.js';

const OUTPUT = 'test-output';

// Started while the file loads, so that a machine with no Chromium skips the tier (with its reason)
// instead of failing it; the browser is closed by the afterAll below like the stack.
const launched = await launchBrowser();
const inBrowser = 'browser' in launched ? describe : describe.skip;
const browser = ('browser' in launched ? launched.browser : undefined) as Browser;

let stack: Stack;
let acme: Partner;

/** Wait until the demo game inside the page's `#game` iframe says it has started. */
async function gameStarted(page: Page): Promise<string> {
  const status = page.frameLocator('iframe#game').locator('#status[data-state="running"]');
  await status.waitFor({ timeout: 10_000 });
  return (await status.textContent()) ?? '';
}

/** The Play button of a `click` page (the game's name in its label). */
const playButton = (page: Page) => page.getByRole('button', { name: /^Play / });

/** Press Play as a person does (a real click), then wait for the game. */
async function play(page: Page): Promise<string> {
  await playButton(page).click();
  return gameStarted(page);
}

inBrowser('play pages in a browser', () => {
  beforeAll(async () => {
    mkdirSync(OUTPUT, { recursive: true });
    stack = await startStack();
    acme = await partner(stack);
  }, 60_000);
  // Also after a failed beforeAll: whatever started is stopped, so no server keeps jest alive.
  afterAll(() =>
    stopAll(
      () => browser?.close(),
      () => stack?.stop(),
    ),
  );

  describe('a tokened link in a browser', () => {
    test('plays once; a refresh keeps playing; the same link in another browser is refused', async () => {
      const token = await acme.mint({ game_id: 101 });
      const url = `${stack.baseUrl}/play/game/101?session_token=${token}`;

      const mine = await browser.newContext();
      const page = await mine.newPage();
      const posts: string[] = [];
      page.on('request', (request) => {
        if (request.method() !== 'GET')
          posts.push(`${request.method()} ${new URL(request.url()).pathname}${new URL(request.url()).search}`);
      });
      expect((await page.goto(url))!.status()).toBe(200);
      expect(await play(page)).toContain('Game started');
      expect(await page.title()).toBe('Acme Spin-to-Win');
      // The page's script consumed the token before starting the game, in one request that also set the cookie.
      expect(await statusOf(stack, token)).toBe('consumed');
      expect(posts).toEqual(['POST /play/session']);
      // The answer's data reached the page: the game's frame carries its session id.
      const sessionId = Number(await page.locator('iframe#game').getAttribute('data-session-id'));
      expect(sessionId).toBeGreaterThan(0);
      await page.screenshot({ path: `${OUTPUT}/play-page-playing.png` });

      // The play cookie is HttpOnly: the page (and the game) cannot read it; it names the session the answer did.
      const cookies = await mine.cookies();
      const cookie = cookies.find((c) => c.name === 'play_game_101');
      expect(cookie).toMatchObject({ httpOnly: true, sameSite: 'Lax', secure: false, path: '/' });
      expect(JSON.parse(Buffer.from(cookie!.value.split('.')[0]!, 'base64url').toString('utf8')).sid).toBe(sessionId);
      expect(await page.evaluate('document.cookie')).toBe('');

      const reloaded = await page.reload();
      expect(reloaded!.status()).toBe(200);
      expect(await gameStarted(page)).toContain('Game started');

      const other = await browser.newContext();
      const elsewhere = await other.newPage();
      expect((await elsewhere.goto(url))!.status()).toBe(410);
      expect(await elsewhere.locator('h1').textContent()).toBe('This link has already been used');
      expect(await elsewhere.locator('.todo').textContent()).toMatch(/ask the site that sent you for a new link/);
      expect(await elsewhere.locator('iframe').count()).toBe(0);
      await elsewhere.screenshot({ path: `${OUTPUT}/play-page-already-used.png`, fullPage: true });
      await Promise.all([mine.close(), other.close()]);
    }, 60_000);

    test('two tabs of one browser: the first starts the session, the second is refused (410), reloads and plays with the cookie', async () => {
      const token = await acme.mint({ game_id: 101 });
      const url = `${stack.baseUrl}/game/101?session_token=${token}`;
      const context = await browser.newContext();
      // Both tabs' pages are served while the token is active; their script's requests are held here.
      const held: Route[] = [];
      await context.route('**/play/session', (route) => void held.push(route));
      const [first, second] = [await context.newPage(), await context.newPage()];
      await Promise.all([first.goto(url), second.goto(url)]);
      await playButton(first).click();
      await playButton(second).click();
      for (let waited = 0; held.length < 2 && waited < 10_000; waited += 50) await new Promise((done) => setTimeout(done, 50));
      expect(held).toHaveLength(2);
      const of = (page: Page) => held.find((route) => route.request().frame().page() === page)!;
      await of(first).continue();
      expect(await gameStarted(first)).toContain('Game started');
      const refused = second.waitForResponse((response) => response.url().endsWith('/play/session'));
      const reloaded = second.waitForNavigation();
      await of(second).continue();
      expect((await refused).status()).toBe(410);
      expect((await reloaded)!.status()).toBe(200);
      expect(await gameStarted(second)).toContain('Game started');
      await context.close();
    }, 60_000);

    test('a link scanner that runs no script leaves the token usable', async () => {
      const token = await acme.mint({ stream_id: 201 });
      const url = `${stack.baseUrl}/stream/acme/201?session_token=${token}`;
      const scanner = await browser.newContext({ javaScriptEnabled: false });
      const preview = await scanner.newPage();
      expect((await preview.goto(url))!.status()).toBe(200);
      expect(await preview.locator('iframe').count()).toBe(0);
      expect(await statusOf(stack, token)).toBe('active');

      const person = await browser.newContext();
      const page = await person.newPage();
      await page.goto(url);
      expect(await play(page)).toContain('Game started');
      expect(await statusOf(stack, token)).toBe('consumed');
      await Promise.all([scanner.close(), person.close()]);
    }, 60_000);

    test('a scanner that runs the script but clicks nothing consumes nothing in 10 s; a person’s click plays, with one POST', async () => {
      const token = await acme.mint({ game_id: 101 });
      const context = await browser.newContext();
      const page = await context.newPage();
      const posts: string[] = [];
      page.on('request', (request) => void (request.method() === 'POST' && posts.push(new URL(request.url()).pathname)));
      expect((await page.goto(`${stack.baseUrl}/play/game/101?session_token=${token}`))!.status()).toBe(200);
      // The cover: the game's name and one Play button, focused; axe finds nothing.
      await expect(playButton(page).textContent()).resolves.toBe('Play Acme Spin-to-Win');
      await expect(page.evaluate('document.activeElement?.id')).resolves.toBe('play-start');
      await expectAccessible(page, 'the Play cover');
      await page.screenshot({ path: `${OUTPUT}/play-page-cover.png` });
      // What a scanner's script may do: click it from script, dispatch a synthetic click, press Enter on it.
      await page.evaluate(`document.getElementById('play-start').click()`);
      await page.evaluate(`document.getElementById('play-start').dispatchEvent(new MouseEvent('click', { bubbles: true }))`);
      await page.evaluate(
        `document.getElementById('play-start').dispatchEvent(new KeyboardEvent('keydown', { key: 'Enter', bubbles: true }))`,
      );
      await page.waitForTimeout(10_000);
      expect(posts).toEqual([]);
      expect(await statusOf(stack, token)).toBe('active');
      expect(await page.locator('iframe').count()).toBe(0);
      // A person's click: exactly one POST, and the game.
      expect(await play(page)).toContain('Game started');
      expect(posts).toEqual(['/play/session']);
      expect(await statusOf(stack, token)).toBe('consumed');
      await context.close();
    }, 60_000);

    test('the keyboard starts it too: Enter on the focused Play button', async () => {
      const token = await acme.mint({ stream_id: 201 });
      const context = await browser.newContext();
      const page = await context.newPage();
      await page.goto(`${stack.baseUrl}/stream/acme/201?session_token=${token}`);
      await playButton(page).waitFor();
      await page.keyboard.press('Enter');
      expect(await gameStarted(page)).toContain('Game started');
      expect(await statusOf(stack, token)).toBe('consumed');
      await context.close();
    }, 60_000);

    test('a game that requires no token plays without one', async () => {
      const context = await browser.newContext();
      const page = await context.newPage();
      expect((await page.goto(`${stack.baseUrl}/play/game/102`))!.status()).toBe(200);
      expect(await gameStarted(page)).toContain('Game started');
      await context.close();
    }, 60_000);
  });

  describe('framing, in a partner’s page on another site', () => {
    let partnerSite: Server;
    let partnerUrl: string;
    let token: string;
    beforeAll(async () => {
      token = await acme.mint({ game_id: 101 });
      // A real loopback server (another site: 127.0.0.1 vs localhost): Chrome lets only local pages frame local ones.
      partnerSite = createServer((_req, res) => {
        res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
        res.end(`<!doctype html><title>Partner</title>
<iframe id="embed" src="${stack.baseUrl}/embed/101?session_token=${token}" width="520" height="420"></iframe>
<iframe id="page" src="${stack.baseUrl}/game/102" width="300" height="200"></iframe>`);
      });
      await new Promise<void>((done) => partnerSite.listen(0, '127.0.0.1', done));
      partnerUrl = `http://127.0.0.1:${(partnerSite.address() as AddressInfo).port}/`;
    });
    afterAll(() => new Promise<void>((done) => (partnerSite ? partnerSite.close(() => done()) : done())));

    test('the embed page starts at once (auto: it consumes its token) inside the iframe; the game page refuses to be framed', async () => {
      const context = await browser.newContext();
      const page = await context.newPage();
      await page.goto(partnerUrl);
      const status = page.frameLocator('#embed').frameLocator('iframe#game').locator('#status[data-state="running"]');
      await status.waitFor({ timeout: 10_000 });
      expect(await status.textContent()).toContain('Game started');
      expect(await statusOf(stack, token)).toBe('consumed');

      const embed = await (await page.$('#embed'))!.contentFrame();
      expect(embed!.url()).toBe(`${stack.baseUrl}/embed/101?session_token=${token}`);
      expect(await embed!.locator('.bar').count()).toBe(0);
      // X-Frame-Options / frame-ancestors: the browser shows its own error page instead of ours.
      const framed = await (await page.$('#page'))!.contentFrame();
      expect(framed!.url()).toMatch(/^chrome-error:/);
      await context.close();
    }, 60_000);
  });
});
