/**
 * The admin console for members who may only read or only switch games (docs/console.md,
 * "Roles"): the role list-orgs gives decides up front what is offered, before any click. A viewer
 * sees the games with read-only switches and no key controls; an analyst lands on usage; an editor
 * switches games and streams but is refused the keys. An org the list does not name
 * (opened by its id) shows the controls, and the service's refusal turns them read-only.
 */
import { afterAll, beforeAll, describe, expect, test } from '@jest/globals';
import { mkdirSync } from 'node:fs';
import type { Browser, Page } from 'playwright-core';
import { launchBrowser } from '../support/browser.js';
import { expectAccessible, openOrg, OUTPUT, signIn, tab } from '../support/console-page.js';
import { startStack, type Stack } from '../support/local-stack.js';
import { stopAll } from '../support/teardown.js';

const launched = await launchBrowser();
const inBrowser = 'browser' in launched ? describe : describe.skip;
const browser = ('browser' in launched ? launched.browser : undefined) as Browser;

let stack: Stack;

/** The changes the page sends (PATCH / POST / DELETE to the API), to show none was tried. */
function changesSent(page: Page): string[] {
  const sent: string[] = [];
  page.on('request', (request) => {
    if (request.url().includes('/api/org-api-keys') && request.method() !== 'GET') sent.push(`${request.method()} ${request.url()}`);
  });
  return sent;
}

/** The keys page refuses (the service's message), and offers no "Create a key". */
async function keysRefused(page: Page): Promise<void> {
  await tab(page, 'API keys');
  await page
    .getByRole('alert')
    .filter({ hasText: /^Not allowed: Only owners and admins/ })
    .waitFor();
  await expect(page.getByRole('button', { name: 'Create a key' }).count()).resolves.toBe(0);
}

/** Every switch of the games page is read-only, with the role's reason above them, before any click. */
async function switchesReadOnly(page: Page, role: string): Promise<void> {
  await tab(page, 'Games & streams');
  await page
    .getByRole('status')
    .filter({ hasText: `Read-only: your role (${role})` })
    .waitFor();
  const switches = page.getByRole('switch');
  await switches.first().waitFor();
  expect(await switches.count()).toBe(4);
  for (const toggle of await switches.all()) expect(await toggle.isDisabled()).toBe(true);
}

inBrowser('the console for members who are not admins', () => {
  beforeAll(async () => {
    mkdirSync(OUTPUT, { recursive: true });
    stack = await startStack();
  }, 90_000);
  afterAll(() =>
    stopAll(
      () => browser?.close(),
      () => stack?.stop(),
    ),
  );

  test('a viewer: games read-only from the start, keys refused without a create button, nothing sent', async () => {
    const viewer = await signIn(browser, stack.baseUrl, 'acme-viewer', 390);
    const { page } = viewer;
    const sent = changesSent(page);
    // The picker opens the games, the one page a viewer reads; its role is named beside the tabs.
    await openOrg(page, 1, 'Games & streams');
    await page.getByText('Acme Games · your role: viewer').waitFor();
    await switchesReadOnly(page, 'viewer');
    await expectAccessible(page, 'games read-only');
    await page.screenshot({ path: `${OUTPUT}/console-viewer-games-390.png`, fullPage: true });
    await keysRefused(page);
    expect(sent).toEqual([]);
    expect(viewer.cspViolations).toEqual([]);
    await viewer.context.close();
  }, 60_000);

  test('an analyst of one org lands on its usage, keys by id (it may not list them); keys refused, games read-only', async () => {
    // A mint by the demo key, so the report has a key row.
    stack.secrets.noteRawKey(stack.credentials.api_key);
    expect((await stack.post('create-session', { game_id: 101 }, { 'x-api-key': stack.credentials.api_key })).status).toBe(200);
    const analyst = await signIn(browser, stack.baseUrl, 'acme-analyst');
    const { page } = analyst;
    const listKeys: string[] = [];
    page.on('request', (r) => {
      if (/\/api\/org-api-keys\?org_id=/.test(r.url()) && r.method() === 'GET') listKeys.push(r.url());
    });
    await openOrg(page, 1, 'Usage');
    await page.getByRole('region', { name: /^Per day/ }).waitFor();
    expect(await page.getByRole('alert').count()).toBe(0);
    // The key is named by its id alone, the filter is a typed id, and list-keys (refused to an analyst) is never asked.
    await expect(page.getByLabel('Key to chart').locator('option').allTextContents()).resolves.toEqual([expect.stringMatching(/^#\d+$/)]);
    await expect(page.getByLabel('Key id (blank: every key)').isVisible()).resolves.toBe(true);
    expect(listKeys).toEqual([]);
    await keysRefused(page);
    await switchesReadOnly(page, 'analyst');
    await analyst.context.close();
  }, 60_000);

  test('an editor: switches a stream on and off (the service has each change), keys refused', async () => {
    const editor = await signIn(browser, stack.baseUrl, 'acme-member');
    const { page } = editor;
    await openOrg(page, 1, 'Games & streams');
    await page.getByText('Acme Games · your role: editor').waitFor();
    const toggle = page.getByRole('switch', { name: 'Require API Session Token for Acme Open Stream' });
    expect(await toggle.isDisabled()).toBe(false);
    const required = async () => (await stack.services.stores.catalog.getPlayable('stream', 202))?.require_session_token;
    await toggle.check();
    await page.getByText('Acme Open Stream: session token required.').waitFor();
    await expect(required()).resolves.toBe(true);
    await toggle.uncheck();
    await page.getByText(/no longer required\./).waitFor();
    await expect(required()).resolves.toBe(false);
    await keysRefused(page);
    expect(editor.cspViolations).toEqual([]);
    await editor.context.close();
  }, 60_000);

  test('an org the list does not name (opened by its id): the switch is tried, refused, then read-only', async () => {
    const viewer = await signIn(browser, stack.baseUrl, 'acme-viewer');
    const { page } = viewer;
    // A membership the list leaves out (stored before list-orgs, not yet backfilled): the role is unknown.
    await page.route(
      (url) => url.searchParams.get('action') === 'list-orgs',
      (route) =>
        route.fulfill({ status: 200, contentType: 'application/json', body: JSON.stringify({ success: true, data: { orgs: [] } }) }),
    );
    // A new document at the picker: the single-org landing (`useOnlyOrg`) may already have left it.
    await page.goto('about:blank');
    await page.goto(`${stack.baseUrl}/console/#/`);
    await page.getByLabel('Organization id').fill('1');
    await page.getByRole('button', { name: 'Open' }).click();
    await page.getByRole('heading', { level: 1, name: 'API keys' }).waitFor();
    await tab(page, 'Games & streams');
    const toggle = page.getByRole('switch', { name: 'Require API Session Token for Acme Memory (open)' });
    expect(await toggle.isDisabled()).toBe(false);
    await toggle.check();
    await page
      .getByRole('alert')
      .filter({ hasText: /owners, admins and editors/ })
      .waitFor();
    expect(await toggle.isDisabled()).toBe(true);
    expect(await toggle.isChecked()).toBe(false);
    await viewer.context.close();
  }, 60_000);
});
