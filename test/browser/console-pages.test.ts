/**
 * The console as an admin used to Stripe's and Unkey's dashboards expects it (docs/console.md):
 * a single-org admin lands in the org; lists are one line per item with one actions menu and a
 * link to the item's page (`#/org/1/keys/3`, `#/org/1/webhooks/5`; Back returns to the list); the
 * key page shows usage, recent calls, settings and actions; Revoke asks first and Cancel does
 * nothing; a dialog's Save is in view at 1280x900; the endpoint page shows health (why it is
 * paused) and deliveries, and follows a test event's delivery to Succeeded without Refresh; "All
 * events" and chosen types exclude each other; the audit log shows seconds and the ISO time, offers
 * its actions as a select and hides every read. Each page at 1280 and 390 px, with axe.
 * Screenshots: test-output/console-page-*.png.
 */
import { afterAll, beforeAll, describe, expect, test } from '@jest/globals';
import { mkdirSync } from 'node:fs';
import type { Browser, Locator, Page } from 'playwright-core';
import { adminApi, type AdminApi } from '../support/admin-api.js';
import { launchBrowser } from '../support/browser.js';
import { expectAccessible, openOrg, OUTPUT, row, rowAction, signIn, statusIs, tab, type ConsoleTab } from '../support/console-page.js';
import { startStack, type Stack } from '../support/local-stack.js';
import { stopAll } from '../support/teardown.js';

const launched = await launchBrowser();
const inBrowser = 'browser' in launched ? describe : describe.skip;
const browser = ('browser' in launched ? launched.browser : undefined) as Browser;

let stack: Stack;
let api: AdminApi;
const opened: ConsoleTab[] = [];
/** The key the tests look at, and its raw value (it mints sessions, so it has usage and calls). */
let keyId: number;

/** Sign in as org 1's admin at `width` px: the console opens the org by itself. */
async function admin(width: number): Promise<Page> {
  const signedIn = await signIn(browser, stack.baseUrl, 'acme-admin', width);
  opened.push(signedIn);
  await openOrg(signedIn.page, 1);
  return signedIn.page;
}

/** The page never scrolls sideways. */
async function expectNoSidewaysScroll(page: Page, when: string): Promise<void> {
  const overflow = await page.evaluate('document.scrollingElement.scrollWidth - document.scrollingElement.clientWidth');
  expect({ when, overflow }).toEqual({ when, overflow: 0 });
}

/** The box of `locator` lies wholly inside the window (no scrolling needed to see it). */
async function expectInView(page: Page, locator: Locator, what: string): Promise<void> {
  const box = (await locator.boundingBox())!;
  const { width, height } = page.viewportSize()!;
  expect({ what, inside: box.x >= 0 && box.y >= 0 && box.x + box.width <= width && box.y + box.height <= height }).toEqual({
    what,
    inside: true,
  });
}

/** The receiver's URL for `name` on this stack. */
const receiverUrl = (name: string) => `${stack.baseUrl}/dev/webhooks/${name}`;

/** An endpoint made through the API: its id. */
async function makeEndpoint(url: string): Promise<number> {
  const made = await api.createWebhook({ org_id: 1, url, events: ['*'] });
  expect(made.status).toBe(200);
  stack.secrets.noteText(made.body.data.secret);
  return made.body.data.id as number;
}

/** Whether key `id` is active, as the service holds it. */
async function isActive(id: number): Promise<boolean> {
  const listed = await api.list(1);
  return (listed.body.data as { id: number; is_active: boolean }[]).find((k) => k.id === id)!.is_active;
}

inBrowser('the console’s item pages, menus and confirmations', () => {
  beforeAll(async () => {
    mkdirSync(OUTPUT, { recursive: true });
    stack = await startStack({ workers: true });
    api = adminApi(stack);
    const made = await api.create({
      org_id: 1,
      name: 'Checkout server',
      description: 'Mints for the storefront',
      mcp_scopes: ['mcp:reports:read'],
    });
    expect(made.status).toBe(200);
    keyId = made.body.data.id as number;
    const raw = made.body.data.key as string;
    stack.secrets.noteRawKey(raw);
    for (const game_id of [101, 101, 999_999]) await stack.post('create-session', { game_id }, { 'x-api-key': raw });
  }, 90_000);
  afterAll(() =>
    stopAll(
      ...opened.map((signedIn) => () => signedIn.context.close()),
      () => browser?.close(),
      () => stack?.stop(),
    ),
  );

  test('an admin of one organization lands in it; the picker is one click away', async () => {
    const page = await admin(1280);
    expect(page.url()).toBe(`${stack.baseUrl}/console/#/org/1/keys`);
    await page.getByRole('link', { name: 'Organizations' }).click();
    await page.getByRole('heading', { level: 1, name: 'Organizations' }).waitFor();
    await page.locator('ul.orgs li').first().waitFor();
  }, 60_000);

  for (const width of [1280, 390]) {
    test(`the key page (usage, recent calls, settings, actions) from its one-line row, and Back, at ${width} px`, async () => {
      const page = await admin(width);
      const key = row(page, 'Checkout server');
      await statusIs(key, 'Active');
      if (width === 1280) {
        // One line: the row is no taller than its menu button and badge.
        expect((await key.boundingBox())!.height).toBeLessThan(60);
        await expect(key.getByRole('button').count()).resolves.toBe(0);
      }
      await expectAccessible(page, `keys list at ${width} px`);
      await page.screenshot({ path: `${OUTPUT}/console-page-keys-${width}.png`, fullPage: true });
      await key.getByRole('link', { name: 'Checkout server' }).click();
      await page.getByRole('heading', { level: 1, name: 'Checkout server' }).waitFor();
      expect(page.url()).toBe(`${stack.baseUrl}/console/#/org/1/keys/${keyId}`);
      await page.getByRole('heading', { name: 'Usage, last 14 days' }).waitFor();
      await page.locator('figure.chart [role="img"] canvas').waitFor();
      await page.getByText(/^2 sessions created; 1 call refused/).waitFor();
      const calls = page.getByRole('region', { name: 'Recent calls', exact: true });
      await calls.locator('tbody th', { hasText: 'create-session' }).first().waitFor();
      await calls.locator('td.refused').first().waitFor();
      await page.getByRole('heading', { name: 'Settings' }).waitFor();
      await page.locator('dl.facts dd', { hasText: 'mcp:reports:read' }).waitFor();
      const actions = page.getByRole('group', { name: 'Key actions' });
      await expect(actions.getByRole('button').allTextContents()).resolves.toEqual(['Edit', 'Revoke', 'Rotate', 'Delete']);
      await page.getByRole('heading', { name: 'Rotation history' }).waitFor();
      await expectNoSidewaysScroll(page, `key page at ${width} px`);
      await expectAccessible(page, `key page at ${width} px`);
      await page.screenshot({ path: `${OUTPUT}/console-page-key-${width}.png`, fullPage: true });
      await page.goBack();
      await page.getByRole('heading', { level: 1, name: 'API keys' }).waitFor();
      expect(page.url()).toBe(`${stack.baseUrl}/console/#/org/1/keys`);
    }, 60_000);
  }

  for (const width of [1280, 390]) {
    test(`Revoke asks first, saying the consequence; Cancel leaves the key active; confirming revokes it, at ${width} px`, async () => {
      const page = await admin(width);
      const key = row(page, 'Checkout server');
      await rowAction(key, 'Revoke');
      const dialog = page.getByRole('dialog', { name: 'Revoke Checkout server?' });
      await dialog.getByText(/the next call made with it is refused \(401\)/).waitFor();
      await expectAccessible(page, `revoke confirmation at ${width} px`);
      await dialog.getByRole('button', { name: 'Cancel' }).click();
      await dialog.waitFor({ state: 'detached' });
      await expect(isActive(keyId)).resolves.toBe(true);
      await statusIs(key, 'Active');
      await rowAction(key, 'Revoke');
      await dialog.getByRole('button', { name: 'Revoke the key' }).click();
      await statusIs(key, 'Revoked');
      await expect(isActive(keyId)).resolves.toBe(false);
      await rowAction(key, 'Reactivate');
      await statusIs(key, 'Active');
      await expect(isActive(keyId)).resolves.toBe(true);
      // Rotate asks too, and says when the old key stops; Cancel rotates nothing.
      await rowAction(key, 'Rotate');
      const rotate = page.getByRole('dialog', { name: 'Rotate Checkout server?' });
      await rotate.getByText(/then every call with it is refused \(401\)/).waitFor();
      await rotate.getByRole('button', { name: 'Cancel' }).click();
      await rotate.waitFor({ state: 'detached' });
      const listed = (await api.list(1)).body.data as { id: number; rotated_to: number | null }[];
      expect(listed.find((k) => k.id === keyId)!.rotated_to).toBeNull();
    }, 60_000);
  }

  test('the key dialog’s Save is in view without scrolling at 1280x900 (and at 390 px); idle MCP scopes are folded', async () => {
    const page = await admin(1280);
    await rowAction(row(page, 'Checkout server'), 'Edit');
    const dialog = page.getByRole('dialog', { name: /^Edit Checkout server/ });
    await expectInView(page, dialog.getByRole('button', { name: 'Save' }), 'Save at 1280x900');
    const folded = dialog.locator('details.idle-scopes');
    await expect(folded.getAttribute('open')).resolves.toBeNull();
    await folded.locator('summary', { hasText: /scopes of the MCP specification that grant no tool here yet/ }).waitFor();
    await page.setViewportSize({ width: 390, height: 844 });
    await expectInView(page, dialog.getByRole('button', { name: 'Save' }), 'Save at 390x844');
    await expectAccessible(page, 'key dialog at 390 px');
    await page.screenshot({ path: `${OUTPUT}/console-page-key-dialog-390.png` });
    await dialog.getByRole('button', { name: 'Cancel' }).click();
  }, 60_000);

  for (const width of [1280, 390]) {
    test(`the endpoint page: health and deliveries; a test event settles to Succeeded without Refresh, at ${width} px`, async () => {
      const id = await makeEndpoint(receiverUrl(`page-${width}`));
      const page = await admin(width);
      await tab(page, 'Webhooks');
      const endpoint = page.locator(`tbody tr[data-webhook-id="${id}"]`);
      await expectAccessible(page, `endpoints list at ${width} px`);
      await endpoint.getByRole('link', { name: receiverUrl(`page-${width}`) }).click();
      await page.getByRole('heading', { level: 1, name: `Endpoint #${id}` }).waitFor();
      expect(page.url()).toBe(`${stack.baseUrl}/console/#/org/1/webhooks/${id}`);
      await page.getByRole('heading', { name: 'Health' }).waitFor();
      await page.locator('dl.facts dd', { hasText: 'none yet' }).waitFor();
      await page.getByText('All events: every type, those added later included.').waitFor();
      await page.getByText('No deliveries yet (they are kept 30 days).').waitFor();
      const refreshes: string[] = [];
      page.on('request', (r) => {
        if (/action=list-webhook-deliveries/.test(r.url())) refreshes.push(r.url());
      });
      await page.getByRole('group', { name: 'Endpoint actions' }).getByRole('button', { name: 'Send test event' }).click();
      const delivery = page.locator('tbody tr[data-delivery-id]').first();
      // Never pressing Refresh: the page follows the pending delivery until it settles.
      await statusIs(delivery, 'Succeeded');
      expect(refreshes.length).toBeGreaterThanOrEqual(2);
      await page.locator('dl.facts dd', { hasText: /Succeeded webhook\.test, answered 204/ }).waitFor();
      await delivery.locator('summary', { hasText: '1 attempt' }).click();
      await delivery.locator('.attempts li', { hasText: /: 204, \d+ ms$/ }).waitFor();
      // The payload, pretty-printed: the event as the receiver got it.
      const payload = delivery.getByRole('region', { name: /^Payload: the webhook\.test event, sent with webhook-id: msg_/ });
      await payload.waitFor();
      const listed = (await api.listWebhookDeliveries({ org_id: 1, webhook_id: id })).body.data.deliveries[0];
      const shown = (await payload.textContent()) ?? '';
      expect(JSON.parse(shown)).toEqual({ type: 'webhook.test', timestamp: listed.payload.timestamp, data: { webhook_id: id } });
      expect(shown).toBe(JSON.stringify(listed.payload, null, 2));
      await expectNoSidewaysScroll(page, `endpoint page at ${width} px`);
      await expectAccessible(page, `endpoint page at ${width} px`);
      await page.screenshot({ path: `${OUTPUT}/console-page-endpoint-${width}.png`, fullPage: true });
      if (width === 1280) {
        // Paused by an admin: the page says who, and when.
        await page.getByRole('group', { name: 'Endpoint actions' }).getByRole('button', { name: 'Pause' }).click();
        await page.locator('dl.facts dd', { hasText: /^Paused by acme-admin at / }).waitFor();
        await page.getByRole('group', { name: 'Endpoint actions' }).getByRole('button', { name: 'Resume' }).click();
        await page.locator('dl.facts dt', { hasText: 'Why paused' }).waitFor({ state: 'detached' });
      }
      await page.goBack();
      await page.getByRole('heading', { level: 1, name: 'Webhooks' }).waitFor();
    }, 60_000);
  }

  for (const width of [1280, 390]) {
    test(`an endpoint the service paused after a 410 says why on its page, at ${width} px`, async () => {
      const id = await makeEndpoint(`${receiverUrl(`gone-${width}`)}?status=410`);
      expect((await api.testWebhook({ id, org_id: 1 })).status).toBe(200);
      const deadline = Date.now() + 15_000;
      while ((await api.listWebhooks(1)).body.data.find((w: { id: number }) => w.id === id).is_active) {
        if (Date.now() > deadline) throw new Error('endpoint not paused after 15 s');
        await new Promise((done) => setTimeout(done, 250));
      }
      const page = await admin(width);
      await page.evaluate(`location.hash = '#/org/1/webhooks/${id}'`);
      await page.getByRole('heading', { level: 1, name: `Endpoint #${id}` }).waitFor();
      await page.locator('dl.facts dd', { hasText: /Paused by the service at .*: the endpoint answered 410 Gone/ }).waitFor();
      await page.locator('dl.facts dd', { hasText: /Exhausted webhook\.test, answered 410/ }).waitFor();
      // The endpoint's own failing_since, exact (never "at least").
      const since = (await api.listWebhooks(1)).body.data.find((w: { id: number }) => w.id === id).failing_since;
      expect(since).toEqual(expect.any(String));
      const failing = page.locator('dl.facts dd', { hasText: /\(every attempt since has failed\)$/ });
      await expect(failing.locator('time').getAttribute('datetime')).resolves.toBe(since);
      await expect(failing.textContent()).resolves.not.toContain('at least');
      await expect(page.getByRole('button', { name: 'Resume' }).count()).resolves.toBe(1);
      await expectNoSidewaysScroll(page, `paused endpoint at ${width} px`);
      await expectAccessible(page, `paused endpoint at ${width} px`);
    }, 60_000);
  }

  for (const width of [1280, 390]) {
    test(`"All events" and chosen types exclude each other, at ${width} px`, async () => {
      const page = await admin(width);
      await tab(page, 'Webhooks');
      await page.getByRole('button', { name: 'Add an endpoint' }).click();
      const form = page.getByRole('dialog', { name: 'Add an endpoint' });
      await form.getByLabel('URL', { exact: true }).fill(receiverUrl(`chosen-${width}`));
      const all = form.getByRole('radio', { name: 'All events' });
      const chosen = form.getByRole('radio', { name: 'Chosen types' });
      await expect(all.isChecked()).resolves.toBe(true);
      // No type reads as chosen while every event is (the events' group; the filter's boxes are its own).
      const types = form.getByRole('group', { name: 'Events', exact: true });
      await expect(types.getByRole('checkbox').count()).resolves.toBe(0);
      await chosen.check();
      await expect(types.getByRole('checkbox', { checked: true }).count()).resolves.toBe(0);
      await form.getByRole('checkbox', { name: 'key.created', exact: true }).check();
      await form.getByRole('checkbox', { name: 'key.deleted', exact: true }).check();
      await expectAccessible(page, `chosen event types at ${width} px`);
      await form.getByRole('button', { name: 'Add the endpoint' }).click();
      const dialog = page.getByRole('dialog', { name: 'Endpoint added' });
      stack.secrets.noteText(await dialog.getByLabel(/^Signing secret/).inputValue());
      await dialog.getByRole('button', { name: 'I have stored it' }).click();
      const listed = (await api.listWebhooks(1)).body.data as { id: number; url: string; events: string[] }[];
      const made = listed.find((w) => w.url === receiverUrl(`chosen-${width}`))!;
      expect(made.events).toEqual(['key.created', 'key.deleted']);
      const endpoint = page.locator(`tbody tr[data-webhook-id="${made.id}"]`);
      await endpoint.locator('td.events', { hasText: /^key\.created, key\.deleted$/ }).waitFor();
      await rowAction(endpoint, 'Edit');
      const edit = page.getByRole('dialog', { name: 'Edit the endpoint' });
      await expect(edit.getByRole('radio', { name: 'Chosen types' }).isChecked()).resolves.toBe(true);
      await edit.getByRole('radio', { name: 'All events' }).check();
      await expect(edit.getByRole('group', { name: 'Events', exact: true }).getByRole('checkbox').count()).resolves.toBe(0);
      await edit.getByRole('button', { name: 'Save' }).click();
      await endpoint.locator('td.events', { hasText: /^All events$/ }).waitFor();
    }, 60_000);
  }

  for (const width of [1280, 390]) {
    test(`the audit log: seconds and the ISO time, the Action select, reads hidden, at ${width} px`, async () => {
      const page = await admin(width);
      // The console's own reads: list-keys (just now), list-webhooks and list-webhook-deliveries.
      await tab(page, 'Webhooks');
      await page.locator('tbody tr[data-webhook-id]').first().waitFor();
      await tab(page, 'Audit log');
      const rows = page.getByRole('region', { name: 'Audit records' }).locator('tbody tr');
      await rows.first().waitFor();
      const actions = await rows.locator('th').allTextContents();
      expect(actions.filter((a) => a.startsWith('list-'))).toEqual([]);
      const time = rows.first().locator('time');
      const iso = (await time.getAttribute('datetime'))!;
      expect(iso).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
      await expect(time.getAttribute('title')).resolves.toBe(iso);
      await expect(time.textContent()).resolves.toMatch(/\d:\d\d:\d\d/);
      await page.getByLabel('Show reads too').check();
      await rows
        .locator('th', { hasText: /^list-webhooks$/ })
        .first()
        .waitFor();
      await page.getByLabel('Show reads too').uncheck();
      await page.getByLabel('Action', { exact: true }).selectOption('update-key');
      const filtered = page.waitForResponse((r) => /audit_action=update-key/.test(r.url()));
      await page.getByRole('button', { name: 'Filter' }).click();
      await filtered;
      // The page shows the filtered records once the answer is drawn.
      const deadline = Date.now() + 5_000;
      let shown = await rows.locator('th').allTextContents();
      while (shown.some((a) => a !== 'update-key') && Date.now() < deadline) {
        await page.waitForTimeout(100);
        shown = await rows.locator('th').allTextContents();
      }
      expect(new Set(shown)).toEqual(new Set(['update-key']));
      // Each record's changes on the screen (cards at 390 px).
      const changes = rows.first().locator('td[data-label="Changes"]');
      await changes.scrollIntoViewIfNeeded();
      await expectInView(page, changes.locator('li').first(), `changes at ${width} px`);
      await expectNoSidewaysScroll(page, `audit at ${width} px`);
      await expectAccessible(page, `audit at ${width} px`);
      await page.screenshot({ path: `${OUTPUT}/console-page-audit-${width}.png`, fullPage: true });
    }, 60_000);
  }
});
