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

/** Open the console at `width` px and sign in as `user` through the provider's login page. */
export async function signIn(browser: Browser, baseUrl: string, user: string, width = 1280): Promise<ConsoleTab> {
  const context = await browser.newContext({ viewport: { width, height: 900 } });
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

/** Open an organization from the org picker; it opens on the first page the role may read (`landing`). */
export async function openOrg(page: Page, orgId: number, landing = 'API keys'): Promise<void> {
  await orgEntry(page, orgId).click();
  await page.getByRole('heading', { level: 1, name: landing }).waitFor();
}

/** Go to one of the org's tabs and wait for its heading. */
export async function tab(page: Page, name: string, heading = name): Promise<void> {
  await page.getByRole('link', { name, exact: true }).click();
  await page.getByRole('heading', { level: 1, name: heading }).waitFor();
}

/** axe-core on the page as it is: no serious or critical violation (the others are listed on failure too). */
export async function expectAccessible(page: Page, label: string): Promise<void> {
  if (String(await page.evaluate('typeof window.axe')) !== 'object') await page.evaluate(AXE_SOURCE);
  const result = (await page.evaluate(`axe.run(document, { resultTypes: ['violations'] })`)) as {
    violations: { id: string; impact: string | null; help: string; nodes: { target: unknown }[] }[];
  };
  const severe = result.violations
    .filter((v) => v.impact === 'serious' || v.impact === 'critical')
    .map((v) => `${label}: ${v.id} (${v.impact}) ${v.help} at ${JSON.stringify(v.nodes.map((n) => n.target).slice(0, 3))}`);
  expect(severe).toEqual([]);
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
