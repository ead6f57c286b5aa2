/**
 * Driving the admin console in the browser tier: sign in through the local provider's login page,
 * check a page with axe-core, take the screenshots at desktop and phone width, and watch for CSP
 * violations (the console must run under its strict policy, with nothing inline).
 */
import { expect } from '@jest/globals';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import type { Browser, BrowserContext, Locator, Page } from 'playwright-core';

/** Where the screenshots go. */
export const OUTPUT = 'test-output';

/** axe-core's browser build, evaluated in the page through the DevTools protocol (which the page's CSP does not govern). */
const AXE_SOURCE = readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');

/** A signed-in console tab, and the CSP violations it reported. */
export interface ConsoleTab {
  readonly context: BrowserContext;
  readonly page: Page;
  readonly cspViolations: string[];
}

/**
 * Open the console at `width` px and sign in as `user` through the provider's login page.
 * `language`: what the browser reports as its language (`navigator.language` and `languages`), as
 * a browser started under a POSIX locale does (Chromium under `LANG=C.UTF-8`: `en-US@posix`).
 */
export async function signIn(browser: Browser, baseUrl: string, user: string, width = 1280, language?: string): Promise<ConsoleTab> {
  const context = await browser.newContext({ viewport: { width, height: 900 } });
  if (language) {
    const tag = JSON.stringify(language);
    await context.addInitScript(
      `Object.defineProperty(Navigator.prototype, 'language', { configurable: true, get: () => ${tag} });` +
        `Object.defineProperty(Navigator.prototype, 'languages', { configurable: true, get: () => [${tag}] });`,
    );
  }
  const page = await context.newPage();
  const cspViolations: string[] = [];
  page.on('console', (message) => {
    if (/Content Security Policy/i.test(message.text())) cspViolations.push(message.text());
  });
  await page.goto(`${baseUrl}/console/`);
  await page.getByRole('button', { name: 'Sign in with your identity provider' }).click();
  // The provider's login page (its markup is the contract: label "User", select#login, "Sign in").
  await page.waitForURL(/\/oidc\/interaction\//);
  await page.locator('select#login').selectOption(user);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.waitForURL(`${baseUrl}/console/**`);
  await page.getByText(`Signed in as`).waitFor();
  return { context, page, cspViolations };
}

/** The org picker's entry of an organization: its name, id, the subject's role and the tier. */
export function orgEntry(page: Page, orgId: number): Locator {
  return page.getByRole('link', { name: new RegExp(`organization ${orgId} ·`) });
}

/**
 * Be in an organization, on the first page the role may read (`landing`): an admin of one
 * organization (every demo user) lands there by itself; with several, the org picker's entry opens it.
 */
export async function openOrg(page: Page, orgId: number, landing = 'API keys'): Promise<void> {
  const heading = page.getByRole('heading', { level: 1, name: landing });
  if (!new RegExp(`#/org/${orgId}/`).test(page.url())) {
    // A picker of one entry opens it by itself; a second entry means the picker stays.
    await heading.or(page.locator('ul.orgs li:nth-child(2)')).first().waitFor();
    if (!(await heading.count())) await orgEntry(page, orgId).click();
  }
  await heading.waitFor();
  expect(page.url()).toMatch(new RegExp(`#/org/${orgId}/`));
}

/** The actions the list row `row` offers in its menu (opened, read, closed). */
export async function rowActions(row: Locator): Promise<string[]> {
  const summary = row.locator('details.row-menu > summary');
  await summary.click();
  const labels = await row.locator('details.row-menu[open] li button').allTextContents();
  await summary.click();
  return labels;
}

/** The row menu of the list row `row` opened, and its action `action` chosen. */
export async function rowAction(row: Locator, action: string): Promise<void> {
  await row.locator('details.row-menu > summary').click();
  await row.locator('details.row-menu[open]').getByRole('button', { name: action, exact: true }).click();
}

/** Go to one of the org's tabs and wait for its heading. */
export async function tab(page: Page, name: string, heading = name): Promise<void> {
  await page.getByRole('link', { name, exact: true }).click();
  await page.getByRole('heading', { level: 1, name: heading }).waitFor();
}

/** axe-core on the page as it is: no violation of any impact. */
export async function expectAccessible(page: Page, label: string): Promise<void> {
  if (String(await page.evaluate('typeof window.axe')) !== 'object') await page.evaluate(AXE_SOURCE);
  const result = (await page.evaluate(`axe.run(document, { resultTypes: ['violations'] })`)) as {
    violations: { id: string; impact: string | null; help: string; nodes: { target: unknown }[] }[];
  };
  const found = result.violations.map(
    (v) => `${label}: ${v.id} (${v.impact}) ${v.help} at ${JSON.stringify(v.nodes.map((n) => n.target).slice(0, 3))}`,
  );
  expect(found).toEqual([]);
}

/** A full-page screenshot at this width, and the same page at 390 px (a phone), then back. */
export async function screenshots(page: Page, name: string): Promise<void> {
  const viewport = page.viewportSize() ?? { width: 1280, height: 900 };
  await page.screenshot({ path: `${OUTPUT}/console-${name}-${viewport.width}.png`, fullPage: true });
  await page.setViewportSize({ width: 390, height: 844 });
  // Nothing may stick out sideways at 390 px but the scrolling table regions.
  const overflow = await page.evaluate('document.documentElement.scrollWidth - document.documentElement.clientWidth');
  expect(overflow).toBeLessThanOrEqual(0);
  await page.screenshot({ path: `${OUTPUT}/console-${name}-390.png`, fullPage: true });
  await page.setViewportSize(viewport);
}

/** The raw key the create / rotate dialog shows once; the dialog is then closed. */
export async function rawKeyShown(page: Page, screenshot?: string): Promise<string> {
  const field = page.getByLabel(/^API key /);
  await field.waitFor();
  const raw = await field.inputValue();
  expect(raw).toMatch(/^dpk_[0-9a-f]{40}$/);
  await page.getByText(/it is shown only once/).waitFor();
  if (screenshot) {
    await expectAccessible(page, screenshot);
    await page.screenshot({ path: `${OUTPUT}/console-${screenshot}-1280.png` });
  }
  // Neither Escape nor the browser closing the dialog itself (Chromium's close-watcher rule may, on
  // a repeated Escape) loses the key: only "I have stored it" closes it.
  const dialog = page.getByRole('dialog', { name: /^Key (created|rotated)$/ });
  await page.keyboard.press('Escape');
  await dialog
    .getByRole('alert')
    .filter({ hasText: /cannot be shown again/ })
    .waitFor();
  await dialog.evaluate((element) => (element as unknown as { close(): void }).close());
  await expect(dialog.getByLabel(/^API key /).inputValue()).resolves.toBe(raw);
  await expect(dialog.isVisible()).resolves.toBe(true);
  await page.getByRole('button', { name: 'I have stored it' }).click();
  await dialog.waitFor({ state: 'detached' });
  return raw;
}

/**
 * Wait until `expression` (about `document.activeElement`) holds in the page, polling from here:
 * Playwright's own waitForFunction evaluates with `eval`, which the console's CSP refuses.
 */
export async function until(page: Page, expression: string): Promise<void> {
  const deadline = Date.now() + 5_000;
  while (!(await page.evaluate(expression))) {
    if (Date.now() > deadline) throw new Error(`still false after 5 s: ${expression}`);
    await new Promise((done) => setTimeout(done, 50));
  }
}

/** Wait until the row's status cell says `status` (the list reloads after each change). */
export const statusIs = (key: ReturnType<typeof row>, status: string) =>
  key.locator('td.status', { hasText: new RegExp(`^${status}$`) }).waitFor();

/** The table row of the key called `name`. */
export const row = (page: Page, name: string) =>
  page.locator('tbody tr', { has: page.getByRole('rowheader', { name: new RegExp(`^${name}`) }) });
