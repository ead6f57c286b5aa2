/**
 * The development webhook receiver of the local run (`/dev/webhooks`, infra/local/dev-webhooks.ts):
 * a delivery signed with the secret of the endpoint registered at its URL shows as verified by the
 * stock library; a wrong signature, or a URL nobody registered, shows as not verified; `?status=`
 * in the registered URL sets the answer; the page lists what arrived, bodies only to the owners
 * and admins of the org whose endpoint they were verified for; an endpoint registered with the
 * front's address (127.0.0.1) is verified as one registered with its name.
 */
import { expect, test } from '@jest/globals';
import { deliveryHeaders } from '../../shared/webhooks/signing.js';
import { describeWithStack } from '../support/describe-with-stack.js';

describeWithStack('the development webhook receiver', ({ stack, admin }) => {
  const register = async (path: string) => {
    const res = await admin.createWebhook({ org_id: 1, url: `${stack.baseUrl}${path}`, events: ['*'] });
    expect(res.status).toBe(200);
    return res.body.data as { id: number; secret: string };
  };
  const deliver = (path: string, secret: string, body: string, id = 'msg_1_01JDEV') =>
    fetch(`${stack.baseUrl}${path}`, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        ...deliveryHeaders({ id, timestampSeconds: Math.floor(Date.now() / 1000), body, secrets: [secret] }),
      },
      body,
    });
  const body = (type: string) => JSON.stringify({ type, timestamp: new Date().toISOString(), data: { webhook_id: 1 } });

  test('a delivery signed with the registered endpoint’s secret is verified; another secret is not', async () => {
    const { secret } = await register('/dev/webhooks/verified');
    expect((await deliver('/dev/webhooks/verified', secret, body('webhook.test'), 'msg_a')).status).toBe(204);
    const other = 'whsec_' + Buffer.alloc(32, 7).toString('base64');
    expect((await deliver('/dev/webhooks/verified', other, body('webhook.test'), 'msg_b')).status).toBe(204);

    const arrived = stack.devWebhooks.arrived();
    expect(arrived.find((d) => d.webhook_id === 'msg_a')).toMatchObject({
      verified: true,
      verify_error: null,
      type: 'webhook.test',
      answered: 204,
    });
    expect(arrived.find((d) => d.webhook_id === 'msg_b')).toMatchObject({
      verified: false,
      verify_error: expect.stringMatching(/signature/i),
    });
  });

  test('a URL no endpoint is registered at is received but not verified', async () => {
    const secret = 'whsec_' + Buffer.alloc(32, 1).toString('base64');
    await deliver('/dev/webhooks/nobody', secret, body('webhook.test'), 'msg_c');
    expect(stack.devWebhooks.arrived()[0]).toMatchObject({
      webhook_id: 'msg_c',
      verified: false,
      verify_error: 'no endpoint is registered at this URL',
    });
  });

  test('?status= in the registered URL is the answer (for watching retries and a 410 locally)', async () => {
    const { secret } = await register('/dev/webhooks/flaky?status=503');
    const res = await deliver('/dev/webhooks/flaky?status=503', secret, body('webhook.test'), 'msg_d');
    expect(res.status).toBe(503);
    expect(stack.devWebhooks.arrived()[0]).toMatchObject({ webhook_id: 'msg_d', verified: true, answered: 503 });
  });

  test('an endpoint registered as http://127.0.0.1:<port>/… is verified as one registered as localhost', async () => {
    const port = new URL(stack.baseUrl).port;
    const res = await admin.createWebhook({ org_id: 1, url: `http://127.0.0.1:${port}/dev/webhooks/by-address`, events: ['*'] });
    expect(res.status).toBe(200);
    await deliver('/dev/webhooks/by-address', res.body.data.secret, body('webhook.test'), 'msg_by_address');
    expect(stack.devWebhooks.arrived()[0]).toMatchObject({ webhook_id: 'msg_by_address', verified: true, org_id: 1, verify_error: null });
  });

  test('bodies are an org’s: anyone sees metadata only; ?org_id= with that org’s admin token shows its bodies, not another org’s', async () => {
    const ours = await register('/dev/webhooks/ours');
    const theirs = await admin.createWebhook({ org_id: 2, url: `${stack.baseUrl}/dev/webhooks/theirs`, events: ['*'] }, 'globex-admin');
    expect(theirs.status).toBe(200);
    const bodyOf = (marker: string) => JSON.stringify({ type: 'webhook.test', timestamp: new Date().toISOString(), data: { marker } });
    await deliver('/dev/webhooks/ours', ours.secret, bodyOf('acme-private-body'), 'msg_ours');
    await deliver('/dev/webhooks/theirs', theirs.body.data.secret, bodyOf('globex-private-body'), 'msg_theirs');

    const anyone = await fetch(`${stack.baseUrl}/dev/webhooks?format=json`);
    const text = await anyone.text();
    expect(text).toContain('msg_theirs');
    for (const hidden of ['acme-private-body', 'globex-private-body', '"body"', 'webhook_signature', 'v1,'])
      expect(text).not.toContain(hidden);
    const html = await (await fetch(`${stack.baseUrl}/dev/webhooks`)).text();
    for (const hidden of ['acme-private-body', 'globex-private-body']) expect(html).not.toContain(hidden);

    const asAdmin = async (orgId: number, as = 'acme-admin') =>
      fetch(`${stack.baseUrl}/dev/webhooks?format=json&org_id=${orgId}`, { headers: { authorization: await admin.bearer(as) } });
    const mine = await asAdmin(1);
    expect(mine.status).toBe(200);
    const listed = ((await mine.json()) as { deliveries: { webhook_id: string; body: string; org_id: number }[] }).deliveries;
    expect(listed.find((d) => d.webhook_id === 'msg_ours')).toMatchObject({
      org_id: 1,
      body: expect.stringContaining('acme-private-body'),
    });
    expect(listed.every((d) => d.org_id === 1)).toBe(true);
    expect(JSON.stringify(listed)).not.toContain('globex-private-body');
    // Another org's, or no token: refused in the service's envelope.
    const other = await asAdmin(2);
    expect([other.status, ((await other.json()) as { code: string }).code]).toEqual([403, 'forbidden']);
    const anonymous = await fetch(`${stack.baseUrl}/dev/webhooks?format=json&org_id=1`);
    expect(anonymous.status).toBe(401);
    expect(await anonymous.text()).not.toContain('acme-private-body');
  });

  test('GET /dev/webhooks lists them newest first (HTML, and JSON with ?format=json); other methods are 405', async () => {
    const page = await fetch(`${stack.baseUrl}/dev/webhooks`);
    expect(page.headers.get('content-type')).toMatch(/text\/html/);
    const html = await page.text();
    expect(html.indexOf('msg_d')).toBeLessThan(html.indexOf('msg_a'));
    expect(html).toContain('✔ verified');
    const json = (await (await fetch(`${stack.baseUrl}/dev/webhooks?format=json`)).json()) as { deliveries: { webhook_id: string }[] };
    const ids = json.deliveries.map((d) => d.webhook_id);
    expect(ids.filter((id) => ['msg_a', 'msg_b', 'msg_c', 'msg_d'].includes(id))).toEqual(['msg_d', 'msg_c', 'msg_b', 'msg_a']);
    expect((await fetch(`${stack.baseUrl}/dev/webhooks`, { method: 'DELETE' })).status).toBe(405);
    expect((await fetch(`${stack.baseUrl}/dev/webhooks/x`)).status).toBe(405);
  });
});
