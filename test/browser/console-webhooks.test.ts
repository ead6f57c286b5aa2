/**
 * The console's Webhooks page (docs/console.md, "Webhooks"): an admin adds an endpoint
 * at the local receiver and sees its secret once, edits its events, pauses and resumes it, sends a
 * test event and sees the delivery on the endpoint's page (then its attempt, answered 204 by the receiver), retries it,
 * rotates the secret and deletes the endpoint. An endpoint that missed events while paused is
 * offered their recovery when resumed: the window's count, then each sent once, verified. A free-tier admin's registration shows the
 * service's refusal; members of the other roles get no tab, and the page opened by its address
 * shows the refusal without a control. Nothing scrolls sideways at 1280 or 390 px. Deliveries go
 * through the stack's own workers (the local delivery queue, `webhook-delivery`) to its
 * `/dev/webhooks` receiver.
 * Screenshots: test-output/console-webhooks-*.png.
 */
import { afterAll, beforeAll, describe, expect, test } from '@jest/globals';
import { mkdirSync } from 'node:fs';
import type { Browser, Locator, Page } from 'playwright-core';
import { adminApi, type AdminApi } from '../support/admin-api.js';
import { createTestKey, UNLIMITED } from '../support/keys.js';
import { sessionsApi } from '../support/sessions-api.js';
import { launchBrowser } from '../support/browser.js';
import {
  expectAccessible,
  openOrg,
  OUTPUT,
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

/** Sign in as `user` at `width` px, open `orgId` (landing on its keys page) and go to its Webhooks tab. */
async function webhooksPage(width: number, user = 'acme-admin', orgId = 1): Promise<Page> {
  const signedIn = await signIn(browser, stack.baseUrl, user, width);
  opened.push(signedIn);
  await openOrg(signedIn.page, orgId);
  await tab(signedIn.page, 'Webhooks');
  return signedIn.page;
}

/** The receiver's URL for `name` on this stack. */
const receiverUrl = (name: string) => `${stack.baseUrl}/dev/webhooks/${name}`;

/** The endpoints table's row of endpoint `id`. */
const endpointRow = (page: Page, id: number) => page.locator(`tbody tr[data-webhook-id="${id}"]`);

/** The page itself never scrolls sideways (a wide table scrolls inside its own box). */
async function expectNoSidewaysScroll(page: Page, when: string): Promise<void> {
  const [scroll, client] = (await page.evaluate(
    '[document.scrollingElement.scrollWidth, document.scrollingElement.clientWidth]',
  )) as number[];
  expect({ when, scroll: scroll! <= client! ? 'none' : `${scroll} > ${client}` }).toEqual({ when, scroll: 'none' });
}

/** Elements (by selector) not wholly inside the window, or cut by a scrolling box around them: their labels. */
async function cutOff(page: Page, selector: string): Promise<string[]> {
  return (await page.evaluate(`[...document.querySelectorAll(${JSON.stringify(selector)})].filter((element) => {
    const r = element.getBoundingClientRect();
    const box = element.closest('.table-wrap')?.getBoundingClientRect() ?? { left: 0, right: innerWidth };
    return r.left < Math.max(0, box.left) - 0.5 || r.right > Math.min(innerWidth, box.right) + 0.5;
  }).map((element) => element.getAttribute('aria-label') ?? element.textContent)`)) as string[];
}

/** The secret the dialog shows once: read, checked, noted for the leak check, and the dialog closed by its button only. */
async function secretShown(page: Page, title: string): Promise<string> {
  const dialog = page.getByRole('dialog', { name: title });
  const field = dialog.getByLabel(/^Signing secret of endpoint #\d+$/);
  await field.waitFor();
  const secret = await field.inputValue();
  expect(secret).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
  stack.secrets.noteText(secret);
  await dialog.getByText(/Store this signing secret now.*shown only once/).waitFor();
  await expect(dialog.getByRole('button', { name: 'Copy secret' }).count()).resolves.toBe(1);
  // Escape would lose it: the dialog stays, and says why.
  await page.keyboard.press('Escape');
  await dialog
    .getByRole('alert')
    .filter({ hasText: /cannot be shown again/ })
    .waitFor();
  await expect(field.inputValue()).resolves.toBe(secret);
  await dialog.getByRole('button', { name: 'I have stored it' }).click();
  await dialog.waitFor({ state: 'detached' });
  return secret;
}

/** Whether `secret` is anywhere in the page: its text, or an input's value. */
async function pageHolds(page: Page, secret: string): Promise<boolean> {
  return (await page.evaluate(
    `document.body.innerText.includes(${JSON.stringify(secret)}) || [...document.querySelectorAll('input')].some((i) => i.value === ${JSON.stringify(secret)})`,
  )) as boolean;
}

/** Press "Refresh" until `shown` is in the page (the queue's timer makes the attempts meanwhile). */
async function refreshUntil(page: Page, shown: Locator): Promise<void> {
  const deadline = Date.now() + 15_000;
  while (!(await shown.count())) {
    if (Date.now() > deadline) throw new Error(`still not shown after 15 s: ${shown.toString()}`);
    await page.getByRole('button', { name: 'Refresh' }).click();
    await new Promise((done) => setTimeout(done, 250));
  }
}

/**
 * How long a page follows a pending delivery by itself (webhook-deliveries.tsx: reloads after 0.5,
 * 1, 2, 4 and 8 s), with a second for the last load to answer.
 */
const FOLLOWED_MS = 16_500;

/** The id of the element that has the focus. */
const focusedId = (page: Page) => page.evaluate('document.activeElement?.id') as Promise<string | undefined>;

/** The delivery row's status cell when it says `status`. */
const statusCell = (delivery: Locator, status: string) => delivery.locator('td.status', { hasText: new RegExp(`^${status}$`) });

inBrowser('the console’s Webhooks page', () => {
  beforeAll(async () => {
    mkdirSync(OUTPUT, { recursive: true });
    stack = await startStack({ workers: true });
    api = adminApi(stack);
  }, 90_000);
  afterAll(() =>
    stopAll(
      ...opened.map((signedIn) => () => signedIn.context.close()),
      () => browser?.close(),
      () => stack?.stop(),
    ),
  );

  test('an admin adds an endpoint (secret once), edits its events, pauses and resumes it, tests, retries, rotates and deletes it', async () => {
    const page = await webhooksPage(1280);
    await page.getByText('No endpoints yet.').waitFor();

    // Add: the URL of the local receiver, two event types, a description.
    await page.getByRole('button', { name: 'Add an endpoint' }).click();
    const form = page.getByRole('dialog', { name: 'Add an endpoint' });
    await form.getByLabel('URL', { exact: true }).fill(receiverUrl('console'));
    await form.getByLabel('Description (optional)').fill('Orders service');
    await expect(form.getByRole('checkbox', { name: 'session.consumed', exact: true }).count()).resolves.toBe(0);
    await form.getByRole('radio', { name: 'Chosen types', exact: true }).check();
    await form.getByRole('checkbox', { name: 'session.consumed', exact: true }).check();
    await form.getByRole('checkbox', { name: 'key.rate_limited', exact: true }).check();
    await expectAccessible(page, 'add an endpoint');
    await form.getByRole('button', { name: 'Add the endpoint' }).click();
    const secret = await secretShown(page, 'Endpoint added');
    // Gone once closed: neither the page nor the list holds it.
    expect(await pageHolds(page, secret)).toBe(false);
    const listed = await api.listWebhooks(1);
    expect(JSON.stringify(listed.body)).not.toContain(secret);
    const id = (listed.body.data as { id: number; url: string }[]).find((w) => w.url === receiverUrl('console'))!.id;
    const row = endpointRow(page, id);
    await row.getByRole('rowheader', { name: /Orders service/ }).waitFor();
    await row.locator('td.events', { hasText: /^session\.consumed, key\.rate_limited$/ }).waitFor();
    await statusIs(row, 'Active');

    // Edit the events.
    await rowAction(row, 'Edit');
    const edit = page.getByRole('dialog', { name: 'Edit the endpoint' });
    await edit.getByRole('checkbox', { name: 'key.created', exact: true }).check();
    await edit.getByRole('checkbox', { name: 'session.consumed', exact: true }).uncheck();
    await edit.getByRole('button', { name: 'Save' }).click();
    await page.getByText(`Endpoint #${id} saved.`).waitFor();
    await row.locator('td.events', { hasText: /^key\.rate_limited, key\.created$/ }).waitFor();

    // A filter: session events of game 101 only (no stream's); the list says so under the URL.
    await rowAction(row, 'Edit');
    await edit.getByRole('checkbox', { name: 'Only some games' }).check();
    await edit.getByLabel('Game ids').fill('101');
    await edit.getByRole('checkbox', { name: 'Only some streams' }).check();
    await expectAccessible(page, 'edit a filter');
    await edit.getByRole('button', { name: 'Save' }).click();
    await page.getByText(`Endpoint #${id} saved.`).waitFor();
    await row.getByRole('rowheader', { name: /Sessions of games 101; no stream/ }).waitFor();
    const filtered = (await api.listWebhooks(1)).body.data.find((w: { id: number }) => w.id === id);
    expect(filtered.filter).toEqual({ game_ids: [101], stream_ids: [] });

    // Pause: nothing is sent to it, so it offers no test; resume.
    await rowAction(row, 'Pause');
    await statusIs(row, 'Paused');
    await expect(rowActions(row)).resolves.toEqual(['Deliveries', 'Recover missed events…', 'Edit', 'Resume', 'Rotate secret', 'Delete']);
    // Nothing happened while it was paused (its events are key.rate_limited and key.created): the
    // resume counts what it missed, none, and offers nothing.
    const counted = page.waitForResponse((r) => r.url().includes('action=recover-webhook'));
    await rowAction(row, 'Resume');
    await statusIs(row, 'Active');
    expect((await (await counted).json()).data).toMatchObject({ dry_run: true, count: 0 });
    await expect(page.getByRole('dialog').count()).resolves.toBe(0);

    // A test event: the endpoint's page opens on its deliveries and follows the new one, untouched,
    // until its attempt is in (the receiver answers 204): nobody presses Refresh.
    await rowAction(row, 'Send test event');
    await page.getByRole('heading', { level: 1, name: `Endpoint #${id}` }).waitFor();
    expect(page.url()).toBe(`${stack.baseUrl}/console/#/org/1/webhooks/${id}/deliveries`);
    await page.getByText(`A webhook.test event is on its way to endpoint #${id}.`).waitFor();
    const deliveries = page.getByRole('region', { name: 'Deliveries', exact: true });
    const actions = page.getByRole('group', { name: 'Endpoint actions' });
    const delivery = deliveries.locator('tbody tr', { has: page.getByRole('rowheader', { name: /^webhook\.test/ }) });
    await delivery.waitFor();
    await expect(focusedId(page)).resolves.toBe('deliveries-heading');
    await statusCell(delivery, 'Succeeded').waitFor({ timeout: FOLLOWED_MS });
    await delivery.locator('summary', { hasText: '1 attempt' }).click();
    await delivery.locator('.attempts li', { hasText: /: 204, \d+ ms$/ }).waitFor();
    const arrived = stack.devWebhooks.arrived().filter((a) => a.path === '/dev/webhooks/console' && a.type === 'webhook.test');
    expect(arrived.map((a) => a.verified)).toEqual([true]);
    await expectAccessible(page, 'deliveries');
    await expectNoSidewaysScroll(page, 'deliveries at 1280 px');
    await expect(cutOff(page, 'td.actions button')).resolves.toEqual([]);
    await page.screenshot({ path: `${OUTPUT}/console-webhooks-deliveries-1280.png`, fullPage: true });

    // Retry it: attempted again (the same webhook-id), the list loaded again.
    const deliveryId = (await delivery.getAttribute('data-delivery-id'))!;
    await delivery.getByRole('button', { name: `Retry webhook.test ${deliveryId}` }).click();
    await deliveries.getByText(`Delivery ${deliveryId} is attempted again now.`).waitFor();
    // The list loads again at once and follows the retried delivery until its second attempt is in.
    await delivery.filter({ has: page.locator('summary', { hasText: '2 attempts' }) }).waitFor({ timeout: FOLLOWED_MS });
    await statusCell(delivery, 'Succeeded').waitFor();
    expect(stack.devWebhooks.arrived().filter((a) => a.webhook_id === deliveryId)).toHaveLength(2);

    // Rotate: a new secret, once; the old one signs beside it for 24 hours.
    await actions.getByRole('button', { name: 'Rotate secret' }).click();
    const rotate = page.getByRole('dialog', { name: `Rotate the secret of endpoint #${id}?` });
    await rotate.getByText(/For the next 24 hours every delivery .* is signed with both/).waitFor();
    await rotate.getByRole('button', { name: 'Rotate the secret' }).click();
    await page
      .getByRole('dialog', { name: 'Secret rotated' })
      .getByText(/previous secret keeps signing too for 24 hours/)
      .waitFor();
    const rotated = await secretShown(page, 'Secret rotated');
    expect(rotated).not.toBe(secret);
    expect(await pageHolds(page, rotated)).toBe(false);

    // Delete, after the confirmation.
    await actions.getByRole('button', { name: 'Delete' }).click();
    await page
      .getByRole('dialog', { name: `Delete endpoint #${id}?` })
      .getByRole('button', { name: 'Delete the endpoint' })
      .click();
    await page.getByRole('heading', { level: 1, name: 'Webhooks' }).waitFor();
    await page.getByText(`Endpoint #${id} deleted.`).waitFor();
    await page.getByText('No endpoints yet.').waitFor();
    await expect((await api.listWebhooks(1)).body.data).toEqual([]);
  }, 120_000);

  test('at 390 px nothing scrolls sideways: the endpoints and their deliveries are cards, the form fits', async () => {
    const made = await api.createWebhook({
      org_id: 1,
      url: `${receiverUrl('a-rather-long-endpoint-name-that-has-no-place-to-break')}?status=503`,
      events: ['*'],
      description: 'Answers 503: its deliveries fail and are scheduled again',
    });
    expect(made.status).toBe(200);
    stack.secrets.noteText(made.body.data.secret);
    const id = made.body.data.id as number;
    // 21 test events: a page of 20 and one older.
    const authorization = `Bearer ${await token()}`;
    for (let i = 0; i < 21; i++) expect((await stack.post('test-webhook', { id, org_id: 1 }, { authorization })).status).toBe(200);

    const page = await webhooksPage(390);
    const row = endpointRow(page, id);
    await row.locator('td.events', { hasText: /^All events$/ }).waitFor();
    await expectNoSidewaysScroll(page, 'endpoints at 390 px');
    await expect(cutOff(page, 'td.actions summary, tbody th[scope="row"]')).resolves.toEqual([]);
    // The endpoint's link opens its page at the top; its menu's "Deliveries" opens it scrolled to
    // the deliveries (below the health and the events on a phone), their heading focused.
    await row.getByRole('link').click();
    await page.getByRole('heading', { level: 1, name: `Endpoint #${id}` }).waitFor();
    const deliveryRows = page.locator('tbody tr[data-delivery-id]');
    await deliveryRows.first().waitFor();
    const deliveriesHeading = page.getByRole('heading', { level: 2, name: 'Deliveries' });
    const below = (await deliveriesHeading.boundingBox())!.y;
    expect(below).toBeGreaterThan(page.viewportSize()!.height);
    await page.goBack();
    await rowAction(endpointRow(page, id), 'Deliveries');
    await deliveryRows.first().waitFor();
    await expect(focusedId(page)).resolves.toBe('deliveries-heading');
    const top = (await deliveriesHeading.boundingBox())!.y;
    expect(top).toBeGreaterThan(-1);
    expect(top).toBeLessThan(100);
    await expect(deliveryRows.count()).resolves.toBe(20);
    const pages = page.getByRole('navigation', { name: 'Delivery pages' });
    const newest = await deliveryRows.first().getAttribute('data-delivery-id');
    // Newest first: the last page holds the first test event.
    await pages.getByRole('button', { name: 'Older' }).click();
    await pages.getByText('Page 2').waitFor();
    await expect(deliveryRows.count()).resolves.toBe(1);
    const oldest = (await deliveryRows.first().getAttribute('data-delivery-id'))!;
    expect(oldest < newest!).toBe(true);
    await expect(pages.getByRole('button', { name: 'Older' }).isDisabled()).resolves.toBe(true);
    const delivery = page.locator(`tbody tr[data-delivery-id="${oldest}"]`);
    await refreshUntil(page, statusCell(delivery, 'Failed, will retry'));
    await delivery.locator('summary').click();
    await delivery
      .locator('.attempts li', { hasText: /: 503, \d+ ms$/ })
      .first()
      .waitFor();
    await expectNoSidewaysScroll(page, 'deliveries at 390 px');
    await expect(cutOff(page, 'td.actions button, .notice, tbody th[scope="row"]')).resolves.toEqual([]);
    await expectAccessible(page, 'webhooks at 390 px');
    await page.screenshot({ path: `${OUTPUT}/console-webhooks-390.png`, fullPage: true });

    await page.getByRole('group', { name: 'Endpoint actions' }).getByRole('button', { name: 'Edit' }).click();
    const edit = page.getByRole('dialog', { name: 'Edit the endpoint' });
    await edit.getByRole('group', { name: 'Events', exact: true }).waitFor();
    // The filter's fields fit too: game ids typed, streams ticked with none.
    await edit.getByRole('checkbox', { name: 'Only some games' }).check();
    await edit.getByLabel('Game ids').fill('101, 102, 103, 104, 105, 106, 107, 108, 109, 110');
    await edit.getByRole('checkbox', { name: 'Only some streams' }).check();
    await expectNoSidewaysScroll(page, 'edit dialog at 390 px');
    await expectAccessible(page, 'edit dialog at 390 px');
    await page.screenshot({ path: `${OUTPUT}/console-webhooks-edit-390.png` });
    await page.keyboard.press('Escape');
    await pages.getByRole('button', { name: 'Newer' }).click();
    await pages.getByText('Page 1').waitFor();
    await expect(deliveryRows.first().getAttribute('data-delivery-id')).resolves.toBe(newest);
    expect((await api.deleteWebhook(id, 1)).status).toBe(200);
  }, 90_000);

  test('resuming an endpoint that missed events offers their recovery: the count, then each sent once with its webhook-id; the dialog fits at 390 px', async () => {
    const made = await api.createWebhook({ org_id: 1, url: receiverUrl('recover'), events: ['session.consumed'] });
    expect(made.status).toBe(200);
    stack.secrets.noteText(made.body.data.secret);
    const id = made.body.data.id as number;
    expect((await api.updateWebhook({ id, org_id: 1, is_active: false })).status).toBe(200);
    // Three plays while it is paused: kept as skipped deliveries, nothing sent.
    const partner = await createTestKey(stack, UNLIMITED);
    const sessions = sessionsApi(stack, () => partner.raw);
    for (let i = 0; i < 3; i++) {
      const token = await sessions.mint({ game_id: 101 });
      expect((await sessions.consume({ token, player_uuid: 'b1c9e5a2-0000-4000-8000-000000000001' })).status).toBe(200);
    }
    const arrivedHere = () => stack.devWebhooks.arrived().filter((a) => a.path === '/dev/webhooks/recover');
    const pausedAt = (await api.listWebhooks(1)).body.data.find((w: { id: number }) => w.id === id).paused_at as string;
    expect(pausedAt).toEqual(expect.any(String));

    // While paused the menu counts what recovering would send, and waits for the resume.
    const page = await webhooksPage(1280);
    const row = endpointRow(page, id);
    await statusIs(row, 'Paused');
    await expect(rowActions(row)).resolves.toEqual(['Deliveries', 'Recover missed events…', 'Edit', 'Resume', 'Rotate secret', 'Delete']);
    await rowAction(row, 'Recover missed events…');
    const dialog = page.getByRole('dialog', { name: `Recover missed events of endpoint #${id}` });
    await dialog.getByText('3 events will be sent again.').waitFor();
    await dialog.getByText(/The endpoint is paused: resume it first/).waitFor();
    await expect(dialog.getByRole('button', { name: 'Recover' }).isDisabled()).resolves.toBe(true);
    await expectAccessible(page, 'recover while paused');
    await page.keyboard.press('Escape');
    await dialog.waitFor({ state: 'detached' });

    // Resume: the dialog opens by itself, its window from the pause (to the second, shown to the minute).
    await rowAction(row, 'Resume');
    await dialog.getByText(`Endpoint #${id} is resumed. Its events since it was paused were kept: send them now?`).waitFor();
    const shownSince = await dialog.getByLabel('Since (your local time)').inputValue();
    expect(new Date(shownSince).getTime()).toBe(Math.floor(Date.parse(pausedAt) / 60_000) * 60_000);
    await dialog.getByText('3 events will be sent again.').waitFor();
    await expectAccessible(page, 'recover after resume');
    await page.screenshot({ path: `${OUTPUT}/console-webhooks-recover-1280.png` });
    // Nothing was sent while it was paused, nor by the resume alone.
    expect(arrivedHere()).toHaveLength(0);
    await dialog.getByRole('button', { name: 'Recover' }).click();
    await dialog.getByText(`3 events queued for endpoint #${id}.`).waitFor();
    await expect(page.evaluate('document.activeElement?.textContent')).resolves.toBe('Close');
    // Sent at the endpoint's pace by the stack's own workers: each skipped delivery once, verified, under its own id.
    const deadline = Date.now() + 15_000;
    while (arrivedHere().length < 3 && Date.now() < deadline) await new Promise((done) => setTimeout(done, 100));
    const kept = (await api.listWebhookDeliveries({ org_id: 1, webhook_id: id })).body.data.deliveries as { id: string }[];
    expect(kept).toHaveLength(3);
    expect(
      arrivedHere()
        .map((a) => [a.webhook_id, a.type, a.verified])
        .sort(),
    ).toEqual(kept.map((d) => [d.id, 'session.consumed', true]).sort());
    await dialog.getByRole('link', { name: 'See them in the deliveries' }).click();
    await page.getByRole('heading', { level: 1, name: `Endpoint #${id}` }).waitFor();
    expect(page.url()).toBe(`${stack.baseUrl}/console/#/org/1/webhooks/${id}/deliveries`);

    // Received: a second recovery has nothing to send, and says so. At 390 px the dialog fits.
    const phone = await webhooksPage(390);
    await rowAction(endpointRow(phone, id), 'Recover missed events…');
    const again = phone.getByRole('dialog', { name: `Recover missed events of endpoint #${id}` });
    await again.getByLabel('Since (your local time)').fill(shownSince);
    await again.getByText('0 events will be sent again.').waitFor();
    await expect(again.getByRole('button', { name: 'Recover' }).isDisabled()).resolves.toBe(true);
    await expectNoSidewaysScroll(phone, 'recover dialog at 390 px');
    // The endpoint's URL (no spaces to break at) wraps inside the dialog.
    await expect(
      phone.evaluate("(() => { const d = document.querySelector('dialog'); return d.scrollWidth - d.clientWidth; })()"),
    ).resolves.toBe(0);
    await expectAccessible(phone, 'recover dialog at 390 px');
    await phone.screenshot({ path: `${OUTPUT}/console-webhooks-recover-390.png` });
    // A window that ends before it starts: the service's refusal, and nothing to send.
    await again.getByLabel('Until (optional, your local time)').fill('2020-01-01T00:00');
    await again
      .getByRole('alert')
      .filter({ hasText: /until must be later than since/ })
      .waitFor();
    await expect(again.getByRole('button', { name: 'Recover' }).isDisabled()).resolves.toBe(true);
    await phone.keyboard.press('Escape');
    expect(arrivedHere()).toHaveLength(3);
    expect((await api.deleteWebhook(id, 1)).status).toBe(200);
  }, 90_000);

  test('a free-tier admin sees the page; registering shows the service’s refusal (the tier it needs)', async () => {
    const page = await webhooksPage(1280, 'tiny-admin', 3);
    await page.getByText('No endpoints yet.').waitFor();
    await page.getByRole('button', { name: 'Add an endpoint' }).click();
    const form = page.getByRole('dialog', { name: 'Add an endpoint' });
    await form.getByLabel('URL', { exact: true }).fill(receiverUrl('tiny'));
    await form.getByRole('button', { name: 'Add the endpoint' }).click();
    const refusal = await form.getByRole('alert').textContent();
    expect(refusal).toMatch(/Business/);
    await page.keyboard.press('Escape');
  }, 60_000);

  test('members of the other roles get no Webhooks tab; the page opened by its address refuses, with no control', async () => {
    for (const [user, landing] of [
      ['acme-viewer', 'Games & streams'],
      ['acme-analyst', 'Usage'],
      ['acme-member', 'Games & streams'],
    ] as const) {
      const signedIn = await signIn(browser, stack.baseUrl, user, 390);
      opened.push(signedIn);
      const { page } = signedIn;
      await openOrg(page, 1, landing);
      await expect(page.getByRole('link', { name: 'Webhooks', exact: true }).count()).resolves.toBe(0);
      // The address typed in (a hash change: the tokens are in memory only, a reload would sign in again).
      await page.evaluate(`location.hash = '#/org/1/webhooks'`);
      await page.getByRole('heading', { level: 1, name: 'Webhooks' }).waitFor();
      await page
        .getByRole('alert')
        .filter({ hasText: /^Not allowed: Only owners and admins of the organization may manage webhooks/ })
        .waitFor();
      await expect(page.getByRole('button', { name: 'Add an endpoint' }).count()).resolves.toBe(0);
      await signedIn.context.close();
    }
  }, 90_000);
});

/** A bearer token of org 1's admin (the API's own calls, beside the console's). */
async function token(): Promise<string> {
  return stack.issuer.sign('acme-admin');
}
