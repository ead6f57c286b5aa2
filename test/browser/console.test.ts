/**
 * The admin console in a real browser: sign in through the local provider's login page;
 * create a key and mint with it, revoke it and see the next mint refused, reactivate and rotate it;
 * switch "Require API Session Token" and see the play page change; read usage (per day and per key)
 * and the audit entry. axe-core finds no serious or critical violation on any page, the console
 * reports no CSP violation, and every page is screenshot at 1280 and 390 px (test-output/console-*.png).
 * The read-only members: console-roles.test.ts.
 */
import { afterAll, beforeAll, describe, expect, test } from '@jest/globals';
import { mkdirSync } from 'node:fs';
import type { Browser, Route } from 'playwright-core';
import { PLAY_CATALOG_STALENESS_MS } from '../../shared/sessions/playable-cache.js';
import { launchBrowser } from '../support/browser.js';
import {
  expectAccessible,
  openOrg,
  orgEntry,
  OUTPUT,
  rawKeyShown,
  row,
  rowAction,
  screenshots,
  signIn,
  statusIs,
  tab,
  until,
  type ConsoleTab,
} from '../support/console-page.js';
import { startStack, type Stack } from '../support/local-stack.js';
import { partner } from '../support/play-pages.js';
import { stopAll } from '../support/teardown.js';

const launched = await launchBrowser();
const inBrowser = 'browser' in launched ? describe : describe.skip;
const browser = ('browser' in launched ? launched.browser : undefined) as Browser;

let stack: Stack;
let admin: ConsoleTab;

/** Mint a session for game 101 with a raw key, as a partner's server would: the status. */
async function mint(raw: string): Promise<number> {
  stack.secrets.noteRawKey(raw);
  return (await stack.post('create-session', { game_id: 101 }, { 'x-api-key': raw })).status;
}

inBrowser('the admin console in a browser', () => {
  beforeAll(async () => {
    mkdirSync(OUTPUT, { recursive: true });
    stack = await startStack();
    admin = await signIn(browser, stack.baseUrl, 'acme-admin');
  }, 90_000);
  afterAll(() =>
    stopAll(
      () => browser?.close(),
      () => stack?.stop(),
    ),
  );

  test('signs in through the provider into org 1 (its one org); the org picker lists it; a reload signs in again silently', async () => {
    const { page } = admin;
    await openOrg(page, 1);
    await page.getByRole('link', { name: 'Organizations' }).click();
    await page.getByRole('heading', { level: 1, name: 'Organizations' }).waitFor();
    await expectAccessible(page, 'organizations');
    await screenshots(page, 'organizations');
    // The signed-in subject's organizations (list-orgs): acme-admin is in org 1 only.
    await expect(page.locator('ul.orgs li').allTextContents()).resolves.toEqual([
      'Acme Games organization 1 · your role: admin · business tier',
    ]);
    await expect(page.getByLabel('Organization id').count()).resolves.toBe(0);
    await orgEntry(page, 1).click();
    await page.getByRole('heading', { level: 1, name: 'API keys' }).waitFor();
    await page.getByText('Acme Games · your role: admin').waitFor();
    await page.reload();
    await page.getByRole('heading', { level: 1, name: 'API keys' }).waitFor();
    expect(page.url()).toBe(`${stack.baseUrl}/console/#/org/1/keys`);
  }, 60_000);

  test('create a key, mint with it; revoke it and the next mint is refused; reactivate; rotate', async () => {
    const { page } = admin;
    await page.getByRole('button', { name: 'Create a key' }).click();
    await page.getByLabel('Name', { exact: true }).fill('Browser key');
    await page.getByLabel('Allowed game ids').fill('101, 102');
    await expectAccessible(page, 'create-key dialog');
    await page.getByRole('button', { name: 'Create', exact: true }).click();
    const raw = await rawKeyShown(page, 'key-created');
    expect(await mint(raw)).toBe(200);

    const key = row(page, 'Browser key');
    await statusIs(key, 'Active');
    await expectAccessible(page, 'keys');
    await screenshots(page, 'keys');

    await rowAction(key, 'Revoke');
    await page.getByRole('dialog', { name: 'Revoke Browser key?' }).getByRole('button', { name: 'Revoke the key' }).click();
    await page.getByText(/Browser key \(dpk_[0-9a-f]{4}\) revoked\./).waitFor();
    await statusIs(key, 'Revoked');
    expect(await mint(raw)).toBe(401);

    await rowAction(key, 'Reactivate');
    await page.getByText(/reactivated\./).waitFor();
    await statusIs(key, 'Active');
    expect(await mint(raw)).toBe(200);

    await rowAction(key, 'Rotate');
    await page.getByLabel(/^Grace period/).fill('30');
    await expectAccessible(page, 'rotate dialog');
    await page.getByRole('button', { name: 'Rotate the key', exact: true }).click();
    const rotated = await rawKeyShown(page);
    expect(rotated).not.toBe(raw);
    expect(await mint(rotated)).toBe(200);
    // The old key works through its grace period.
    expect(await mint(raw)).toBe(200);
    // Each row shows its key's id, so the id "Rotated to" (and usage, and the audit log) names is found.
    const replaced = key.locator('td.status', { hasText: /^Rotated to #\d+$/ });
    await replaced.waitFor();
    const successor = (await replaced.textContent())!.replace('Rotated to ', '');
    await expect(key.locator('td.id').allTextContents()).resolves.toContain(successor);
    for (const each of await key.all())
      expect(await each.locator('td.id').textContent()).toBe(`#${await each.getAttribute('data-key-id')}`);
  }, 90_000);

  test('edit a key: the change is saved and listed', async () => {
    const { page } = admin;
    const key = row(page, 'Browser key').filter({ hasText: 'Active' });
    await rowAction(key, 'Edit');
    await page.getByLabel('Calls per minute').fill('90');
    await page.getByRole('checkbox', { name: 'mcp:reports:read' }).check();
    await page.getByRole('button', { name: 'Save' }).click();
    await page.getByText('Browser key saved.').waitFor();
    await key.filter({ hasText: /90 \/ 10,000/ }).waitFor();
    // The scopes are on the key's page.
    await key.getByRole('link', { name: 'Browser key' }).click();
    await page.locator('dl.facts dd', { hasText: 'mcp:reports:read' }).waitFor();
    await page.goBack();
    await page.getByRole('heading', { level: 1, name: 'API keys' }).waitFor();
  }, 60_000);

  test('"Require API Session Token" switches the play page of game 102', async () => {
    const { page, context } = admin;
    const play = await context.newPage();
    expect((await play.goto(`${stack.baseUrl}/play/game/102`))!.status()).toBe(200);

    await tab(page, 'Games & streams');
    await expectAccessible(page, 'games');
    await screenshots(page, 'games');
    const toggle = page.getByRole('switch', { name: 'Require API Session Token for Acme Memory (open)' });
    expect(await toggle.isChecked()).toBe(false);
    await toggle.check();
    await page.getByText(/session token required\. Play pages follow within 5 seconds\./).waitFor();
    // Play pages keep a game's settings for 5 seconds (PLAY_CATALOG_STALENESS_MS): the console says so; the test moves the clock.
    expect(PLAY_CATALOG_STALENESS_MS).toBe(5_000);
    stack.clock.advance(PLAY_CATALOG_STALENESS_MS + 1_000);
    expect((await play.reload())!.status()).not.toBe(200);
    await play.screenshot({ path: `${OUTPUT}/console-play-page-now-requires-token.png` });

    await toggle.uncheck();
    await page.getByText(/no longer required\./).waitFor();
    stack.clock.advance(PLAY_CATALOG_STALENESS_MS + 1_000);
    expect((await play.reload())!.status()).toBe(200);
    await play.close();
  }, 60_000);

  test('usage shows the mints of today, per day and per key (by name, prefix and id), as a chart and a table', async () => {
    const { page } = admin;
    // The keys as the keys page lists them: "name (prefix…) #id" is how usage names them.
    await tab(page, 'API keys');
    await row(page, 'Browser key').first().waitFor();
    const labels = await row(page, 'Browser key').evaluateAll((rows) =>
      rows.map(
        (r) => `${r.querySelector('th')?.textContent} (${r.querySelector('code')?.textContent}…) ${r.querySelector('td.id')?.textContent}`,
      ),
    );
    expect(labels).toEqual(Array(2).fill(expect.stringMatching(/^Browser key \(dpk_[0-9a-f]{4}…\) #\d+$/)));
    await tab(page, 'Usage');
    // The file's mints, summed over the days shown: a run that crosses midnight UTC splits them over two rows.
    const days = page.getByRole('region', { name: /^Per day/ }).locator('tbody tr');
    await days.first().waitFor();
    const perDay = await days.evaluateAll((rows) => rows.map((r) => r.querySelector('td')?.textContent ?? ''));
    const created = perDay.reduce((sum, cell) => sum + Number(cell.replace(/\D/g, '')), 0);
    expect(created).toBeGreaterThanOrEqual(4);
    // uPlot draws once Preact's effects run (after the paint): wait for its canvas.
    await page.locator('figure.chart [role="img"] canvas').first().waitFor();
    // Per key: a chart of the key picked (the keys that minted: the browser key and its rotation), and every key's numbers in the table.
    const picker = page.getByLabel('Key to chart');
    const options = await picker.locator('option').allTextContents();
    expect(new Set(options)).toEqual(new Set(labels));
    await page.locator('figure.chart figcaption', { hasText: `${options[0]},` }).waitFor();
    await picker.selectOption({ label: options[1]! });
    await page.locator('figure.chart figcaption', { hasText: `${options[1]},` }).waitFor();
    await page.locator('figure.chart').nth(1).locator('canvas').waitFor();
    await expect(page.locator('figure.chart canvas').count()).resolves.toBe(2);
    const tableKeys = await page.getByRole('region', { name: 'Per key and day' }).locator('tbody th').allTextContents();
    expect(new Set(tableKeys)).toEqual(new Set(labels));
    await expectAccessible(page, 'usage');
    await screenshots(page, 'usage');
    // The key filter is a picker of the keys by the same labels.
    await page.getByLabel('Key', { exact: true }).selectOption({ label: labels[0]! });
    await page.getByRole('button', { name: 'Show' }).click();
    await page.getByRole('heading', { name: `Per day, ${labels[0]}` }).waitFor();
  }, 60_000);

  test('"Start" sets how a play page starts: at once, then by page shape again (the Play button)', async () => {
    const { page } = admin;
    const acme = await partner(stack);
    /** Whether a fresh token's page of game 101 shows the Play button (its HTML, as the page function serves it now). */
    const hasPlayButton = async () => {
      stack.clock.advance(PLAY_CATALOG_STALENESS_MS + 1_000);
      const token = await acme.mint({ game_id: 101 });
      const res = await fetch(`${stack.baseUrl}/play/game/101?session_token=${token}`);
      return (await res.text()).includes('id="play-start"');
    };
    await tab(page, 'Games & streams');
    const start = page.getByRole('combobox', { name: 'Start Acme Spin-to-Win' });
    await expect(start.inputValue()).resolves.toBe('shape');
    await expect(hasPlayButton()).resolves.toBe(true);
    await start.selectOption({ label: 'At once' });
    await page.getByText(/Acme Spin-to-Win: play pages start at once\. Play pages follow within 5 seconds\./).waitFor();
    await expect(start.inputValue()).resolves.toBe('auto');
    await expect(hasPlayButton()).resolves.toBe(false);
    await start.selectOption({ value: 'shape' });
    await page.getByText(/Acme Spin-to-Win: play pages start by page shape/).waitFor();
    await expect(hasPlayButton()).resolves.toBe(true);
    await expectAccessible(page, 'games, a start mode chosen');
  }, 60_000);

  test('the audit log shows the revocation with its before and after; filters by action and outcome', async () => {
    const { page } = admin;
    await tab(page, 'Audit log');
    await page.getByLabel('Action', { exact: true }).selectOption('update-key');
    await page.getByLabel('Outcome').selectOption('success');
    const filtered = page.waitForResponse((r) => /audit_action=update-key.*outcome=success/.test(r.url()));
    await page.getByRole('button', { name: 'Filter' }).click();
    await filtered;
    const revocation = page.locator('tbody tr', { hasText: 'is_active' }).filter({ hasText: 'acme-admin' }).last();
    await revocation.waitFor();
    await expect(revocation.locator('del').first().textContent()).resolves.toBe('true');
    await expect(revocation.locator('ins').first().textContent()).resolves.toBe('false');
    const actions = await page.locator('tbody th[scope="row"]').allTextContents();
    expect(new Set(actions)).toEqual(new Set(['update-key']));
    await expectAccessible(page, 'audit');
    await screenshots(page, 'audit');
    expect(admin.cspViolations).toEqual([]);
  }, 60_000);

  test('the keyboard alone opens, and Escape closes, a dialog', async () => {
    // Keyboard only, as the admin: the new page's heading takes the focus; Tab reaches "Create a key".
    const keys = admin.page;
    await tab(keys, 'API keys');
    await until(keys, `document.activeElement?.tagName === 'H1'`);
    await keys.keyboard.press('Tab');
    expect(await keys.evaluate('document.activeElement?.textContent')).toBe('Create a key');
    await keys.keyboard.press('Enter');
    const dialog = keys.getByRole('dialog', { name: 'Create an API key' });
    await dialog.waitFor();
    // The focus is inside the dialog (on its first field), and Escape gives it back to the button.
    expect(await keys.evaluate('document.activeElement?.id')).toBe('key-name');
    await keys.keyboard.press('Escape');
    await dialog.waitFor({ state: 'detached' });
    // (Preact unmounts the dialog after the key's event: the focus comes back a moment later.)
    await until(keys, `document.activeElement?.textContent === 'Create a key'`);
  }, 60_000);

  test('a 401 never loops: right after a sign-in it is shown with "Sign in again"; in a dialog it fails in place', async () => {
    const refused = { success: false, error: 'The token was not issued for this API', code: 'invalid_token' };
    const answer401 = (route: Route) => route.fulfill({ status: 401, contentType: 'application/json', body: JSON.stringify(refused) });
    // A dialog is open (a create form; a raw key would be the same): the console stays, the form says why.
    const keys = admin.page;
    await tab(keys, 'API keys');
    await keys.route('**/api/org-api-keys*', (route) => (route.request().method() === 'POST' ? answer401(route) : route.continue()));
    await keys.getByRole('button', { name: 'Create a key' }).click();
    const dialog = keys.getByRole('dialog', { name: 'Create an API key' });
    await keys.getByLabel('Name', { exact: true }).fill('Refused key');
    await keys.getByRole('button', { name: 'Create', exact: true }).click();
    await dialog.getByRole('alert').filter({ hasText: refused.error }).waitFor();
    expect(keys.url()).toBe(`${stack.baseUrl}/console/#/org/1/keys`);
    await keys.unroute('**/api/org-api-keys*');
    await keys.keyboard.press('Escape');
    await dialog.waitFor({ state: 'detached' });

    // A provider whose tokens the API refuses: the reload's silent sign-in completes, the first call is refused.
    const fresh = await signIn(browser, stack.baseUrl, 'acme-analyst');
    const { page } = fresh;
    const authorizations: string[] = [];
    page.on('request', (request) => {
      if (/\/oidc\/auth/.test(request.url())) authorizations.push(request.url());
    });
    await page.route('**/api/org-api-keys*', answer401);
    await page.reload();
    await page
      .getByRole('alert')
      .filter({ hasText: `The service refused the sign-in: ${refused.error} (invalid_token)` })
      .waitFor();
    await page.waitForTimeout(500);
    expect(authorizations).toHaveLength(1);
    await expectAccessible(page, 'sign-in refused');
    await page.unroute('**/api/org-api-keys*');
    const leaving = page.waitForRequest(/\/oidc\/auth/);
    await page.getByRole('button', { name: 'Sign in again' }).click();
    expect((await leaving).url()).not.toMatch(/prompt=none/);
    await fresh.context.close();
  }, 60_000);

  test('sign-out ends the provider session too: the console asks to sign in again', async () => {
    const { page } = admin;
    await page.getByRole('button', { name: 'Sign out' }).click();
    await page.waitForURL(/\/oidc\//);
    // The provider asks first (its own page, infra/local/login-page.ts).
    await page.getByRole('button', { name: 'Sign out', exact: true }).click();
    await page.getByRole('button', { name: 'Sign in with your identity provider' }).waitFor();
    await expectAccessible(page, 'signed out');
    await screenshots(page, 'signed-out');
    await page.reload();
    await page.getByRole('button', { name: 'Sign in with your identity provider' }).waitFor();
  }, 60_000);
});
