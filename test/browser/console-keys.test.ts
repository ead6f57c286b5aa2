/**
 * The admin console as a newcomer meets it: it draws its chart under any
 * locale the browser reports (Chromium under `LANG=C.UTF-8` says `en-US@posix`); the keys page
 * never scrolls sideways and shows every row's actions menu at 1280 and 390 px; a rotated key offers only what
 * the service allows and keeps its rotation visible; the audit log opens on changes and key usage
 * (the console's own reads one click away) and shows a refused change as refused; the key form says
 * what its limits count and which MCP scopes grant no tool here. Screenshots: test-output/console-keys-*.png.
 */
import { afterAll, beforeAll, describe, expect, test } from '@jest/globals';
import { mkdirSync } from 'node:fs';
import type { Browser, Page } from 'playwright-core';
import { MCP_SCOPES, toolsOfScope } from '../../shared/keys/mcp-scopes.js';
import { adminApi, type AdminApi } from '../support/admin-api.js';
import { launchBrowser } from '../support/browser.js';
import {
  expectAccessible,
  openOrg,
  OUTPUT,
  row,
  rowAction,
  rowActions,
  signIn,
  statusIs,
  tab,
  type ConsoleTab,
} from '../support/console-page.js';
import { startStack, type Stack } from '../support/local-stack.js';
import { stopAll } from '../support/teardown.js';

const launched = await launchBrowser();
const inBrowser = 'browser' in launched ? describe : describe.skip;
const browser = ('browser' in launched ? launched.browser : undefined) as Browser;

let stack: Stack;
let api: AdminApi;
const opened: ConsoleTab[] = [];

/** Sign in at `width` px and open org 1's keys page. */
async function keysPage(width: number, language?: string): Promise<Page> {
  const tab = await signIn(browser, stack.baseUrl, 'acme-admin', width, language);
  opened.push(tab);
  await openOrg(tab.page, 1);
  return tab.page;
}

/** The page itself never scrolls sideways (a wide table scrolls inside its own box). */
async function expectNoSidewaysScroll(page: Page, when: string): Promise<void> {
  const [scroll, client] = (await page.evaluate(
    '[document.scrollingElement.scrollWidth, document.scrollingElement.clientWidth]',
  )) as number[];
  expect({ when, scroll: scroll! <= client! ? 'none' : `${scroll} > ${client}` }).toEqual({ when, scroll: 'none' });
}

/** Elements (by selector) not wholly inside the window, or cut by a scrolling box around them: their text. */
async function cutOff(page: Page, selector: string): Promise<string[]> {
  return (await page.evaluate(`[...document.querySelectorAll(${JSON.stringify(selector)})].filter((element) => {
    const r = element.getBoundingClientRect();
    const box = element.closest('.table-wrap')?.getBoundingClientRect() ?? { left: 0, right: innerWidth };
    return r.left < Math.max(0, box.left) - 0.5 || r.right > Math.min(innerWidth, box.right) + 0.5;
  }).map((element) => element.getAttribute('aria-label') ?? element.textContent)`)) as string[];
}

/** A key made through the API: its id. */
async function makeKey(body: Record<string, unknown>): Promise<number> {
  const made = await api.create({ org_id: 1, ...body });
  expect(made.status).toBe(200);
  return made.body.data.id as number;
}

inBrowser('the admin console, as a newcomer met it', () => {
  beforeAll(async () => {
    mkdirSync(OUTPUT, { recursive: true });
    stack = await startStack();
    api = adminApi(stack);
    // Keys that make the table wide: descriptions, allow-lists, every MCP scope, an expiry.
    await makeKey({
      name: 'Checkout server for the web shop',
      description: 'Mints sessions for the storefront and the partner widgets',
      allowed_game_ids: [101, 102],
      allowed_stream_ids: [201],
      mcp_scopes: [...MCP_SCOPES],
      expires_at: new Date(Date.now() + 30 * 86_400_000).toISOString(),
    });
    await makeKey({ name: 'Reporting', mcp_scopes: ['mcp:reports:read', 'mcp:games:read'] });
  }, 90_000);
  afterAll(() =>
    stopAll(
      ...opened.map((tab) => () => tab.context.close()),
      () => browser?.close(),
      () => stack?.stop(),
    ),
  );

  test('under a POSIX locale (en-US@posix, as Chromium reports under LANG=C.UTF-8) usage draws its chart', async () => {
    const page = await keysPage(1280, 'en-US@posix');
    await expect(page.evaluate('navigator.languages.join()')).resolves.toBe('en-US@posix');
    await row(page, 'Reporting').waitFor();
    // The limits read in a valid locale.
    await row(page, 'Reporting').filter({ hasText: '60 / 10,000' }).waitFor();
    await tab(page, 'Usage');
    await page.locator('figure.chart [role="img"] canvas').first().waitFor();
  }, 60_000);

  test('the keys page never scrolls sideways; every row’s actions menu shows whole, at 1280 and at 390 px', async () => {
    const wide = await keysPage(1280);
    const checkout = row(wide, 'Checkout server');
    await statusIs(checkout, 'Active');
    await expectNoSidewaysScroll(wide, '1280 px');
    await expect(cutOff(wide, 'td.actions summary')).resolves.toEqual([]);
    await rowAction(checkout, 'Revoke');
    await wide.getByRole('button', { name: 'Revoke the key' }).click();
    await statusIs(checkout, 'Revoked');
    await expectNoSidewaysScroll(wide, '1280 px, after a revocation');
    await expect(cutOff(wide, 'td.actions summary, .notice')).resolves.toEqual([]);
    await wide.screenshot({ path: `${OUTPUT}/console-keys-actions-1280.png`, fullPage: true });

    const phone = await keysPage(390);
    const key = row(phone, 'Checkout server');
    await rowAction(key, 'Reactivate');
    await phone.getByText(/Checkout server for the web shop \(dpk_[0-9a-f]{4}\) reactivated\./).waitFor();
    await statusIs(key, 'Active');
    await expectNoSidewaysScroll(phone, '390 px, after a reactivation');
    // The message and the keys' names are on the screen.
    await expect(cutOff(phone, '.notice, tbody th[scope="row"]')).resolves.toEqual([]);
    await rowAction(key, 'Edit');
    await phone.getByRole('dialog', { name: /^Edit Checkout server/ }).waitFor();
    await expectNoSidewaysScroll(phone, '390 px, editing');
    await phone.keyboard.press('Escape');
    await expectAccessible(phone, 'keys at 390 px');
    await phone.screenshot({ path: `${OUTPUT}/console-keys-actions-390.png`, fullPage: true });
  }, 90_000);

  test('a rotated, then revoked key offers no "Reactivate" (the service refuses it) and still says what replaced it', async () => {
    const old = await makeKey({ name: 'Rotated then revoked' });
    const rotated = await api.rotate({ id: old, org_id: 1, grace_period_minutes: 30 });
    expect(rotated.status).toBe(200);
    const successor = rotated.body.data.id as number;
    expect((await api.update({ id: old, org_id: 1, is_active: false })).status).toBe(200);
    // The service's rule the console follows: a rotated key can't be reactivated.
    expect((await api.update({ id: old, org_id: 1, is_active: true })).status).toBe(409);

    const page = await keysPage(1280);
    const oldRow = page.locator(`tbody tr[data-key-id="${old}"]`);
    await statusIs(oldRow, `Revoked, rotated to #${successor}`);
    await expect(rowActions(oldRow)).resolves.toEqual(['Edit', 'Delete']);
    const newRow = page.locator(`tbody tr[data-key-id="${successor}"]`);
    await statusIs(newRow, 'Active');
    await expect(rowActions(newRow)).resolves.toEqual(['Edit', 'Revoke', 'Rotate', 'Delete']);

    // A rotated key in its grace period: its expiry may come forward, not go later nor away.
    const graced = await makeKey({ name: 'In its grace period' });
    expect((await api.rotate({ id: graced, org_id: 1, grace_period_minutes: 30 })).status).toBe(200);
    await page.reload();
    const gracedRow = page.locator(`tbody tr[data-key-id="${graced}"]`);
    await statusIs(gracedRow, 'Rotated to #\\d+');
    await expect(rowActions(gracedRow)).resolves.toEqual(['Edit', 'Revoke', 'Delete']);
    await rowAction(gracedRow, 'Edit');
    const expiry = page.getByLabel(/^Expires/);
    await expect(expiry.getAttribute('max')).resolves.toBe(await expiry.inputValue());
    await expect(expiry.getAttribute('required')).resolves.not.toBeNull();
    await page.keyboard.press('Escape');
  }, 60_000);

  test('the audit log opens on changes and key usage, a full page past the console’s own reads; a refused change shows as refused', async () => {
    const id = await makeKey({ name: 'Audited key' });
    const made = await api.rotate({ id, org_id: 1, grace_period_minutes: 0 });
    expect(made.status).toBe(200);
    // Refused: a rotated key can't be reactivated (409); its record names what was asked.
    expect((await api.update({ id, org_id: 1, is_active: true })).status).toBe(409);
    // Usage of a key, then many reads on top (every keys page and key picker lists the keys).
    stack.secrets.noteRawKey(made.body.data.key);
    for (let i = 0; i < 20; i++)
      expect((await stack.post('create-session', { game_id: 101 }, { 'x-api-key': made.body.data.key })).status).toBe(200);
    for (let i = 0; i < 60; i++) expect((await api.list(1)).status).toBe(200);

    const page = await keysPage(1280);
    await tab(page, 'Audit log');
    const actions = page.locator('tbody th[scope="row"]');
    await actions.first().waitFor();
    const shown = await actions.allTextContents();
    expect(shown.length).toBeGreaterThanOrEqual(20);
    expect(shown).not.toContain('list-keys');
    expect(shown).toContain('create-session');

    await page.getByLabel('Action', { exact: true }).selectOption('update-key');
    await page.getByRole('button', { name: 'Filter' }).click();
    const refused = page.locator('tbody tr', { hasText: 'Refused (409)' }).first();
    await refused.waitFor();
    await expect(refused.locator('ins, del').count()).resolves.toBe(0);
    await expect(refused.textContent()).resolves.toMatch(/Not applied\. Asked: is_active → true/);
    await expectAccessible(page, 'audit, refused change');
    await page.screenshot({ path: `${OUTPUT}/console-keys-audit-refused-1280.png`, fullPage: true });
    await expectNoSidewaysScroll(page, 'audit at 1280 px');

    // The reads, one click away.
    await page.getByLabel('Action', { exact: true }).selectOption('');
    await page.getByRole('button', { name: 'Filter' }).click();
    await page.getByRole('checkbox', { name: /^Show reads too/ }).check();
    await page.locator('tbody th[scope="row"]', { hasText: 'list-keys' }).first().waitFor();
    await page.screenshot({ path: `${OUTPUT}/console-keys-audit-reads-1280.png`, fullPage: true });
  }, 90_000);

  test('the key form says its limits count every call, MCP ones too, and which scopes grant no tool here', async () => {
    const page = await keysPage(390);
    await page.getByRole('button', { name: 'Create a key' }).click();
    const dialog = page.getByRole('dialog', { name: 'Create an API key' });
    // count() does not wait: under load the dialog may not be drawn yet when the click returns.
    await dialog.getByLabel('Calls per minute').waitFor();
    await expect(dialog.getByLabel('Calls per minute').count()).resolves.toBe(1);
    await expect(dialog.getByLabel('Calls per day').count()).resolves.toBe(1);
    await expect(dialog.getByText(/each MCP request \(connecting takes two\)/).count()).resolves.toBe(1);
    // Each scope's description: the tools it grants here, or that it grants none (shared/keys/mcp-scopes.ts);
    // those that grant none are folded apart.
    await dialog.locator('details.idle-scopes > summary').click();
    for (const scope of MCP_SCOPES) {
      const box = dialog.getByRole('checkbox', { name: scope, exact: true });
      const described = await dialog.locator(`[id="${await box.getAttribute('aria-describedby')}"]`).textContent();
      const tools = toolsOfScope(scope);
      expect({ scope, described }).toEqual({ scope, described: tools.length ? tools.join(', ') : 'grants no tool here yet' });
    }
    await expectNoSidewaysScroll(page, 'create dialog at 390 px');
    await expectAccessible(page, 'create dialog at 390 px');
    await page.screenshot({ path: `${OUTPUT}/console-keys-create-390.png` });
    await dialog.getByRole('group', { name: 'MCP scopes' }).scrollIntoViewIfNeeded();
    await page.screenshot({ path: `${OUTPUT}/console-keys-create-scopes-390.png` });
    await page.keyboard.press('Escape');
  }, 60_000);
});
