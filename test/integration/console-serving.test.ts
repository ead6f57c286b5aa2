/**
 * The admin console on the local front: `/console/` serves the built page, never cached;
 * its hashed assets are immutable; `config.json` names the local provider; every answer carries
 * the strict CSP (no inline script or style, no third-party origin).
 */
import { afterAll, beforeAll, describe, expect, test } from '@jest/globals';
import { startStack, type Stack } from '../support/local-stack.js';
import { stopAll } from '../support/teardown.js';

let stack: Stack;

beforeAll(async () => {
  stack = await startStack();
}, 60_000);
afterAll(() => stopAll(() => stack?.stop()));

/** The CSP the console must carry, for this run's origin. */
const expectedCsp = () => {
  const origin = new URL(stack.baseUrl).origin;
  return (
    `default-src 'none'; script-src 'self'; style-src 'self'; connect-src 'self' ${origin}; img-src 'self' data:; ` +
    `frame-ancestors 'none'; base-uri 'none'; form-action ${origin}`
  );
};

describe('the console on the local front', () => {
  test('/console/ is the built page, never cached, with the CSP; it names hashed assets only', async () => {
    const page = await stack.request('/console/');
    expect(page.status).toBe(200);
    expect(page.headers.get('content-type')).toBe('text/html; charset=utf-8');
    expect(page.headers.get('cache-control')).toBe('no-cache');
    expect(page.headers.get('content-security-policy')).toBe(expectedCsp());
    const html = String(page.body);
    expect(html).not.toMatch(/<script(?![^>]*\bsrc=)/);
    expect(html).not.toMatch(/<style|style=/);
    const script = /src="(assets\/main-[A-Z0-9]+\.js)"/.exec(html)?.[1];
    const style = /href="(assets\/main-[A-Z0-9]+\.css)"/.exec(html)?.[1];
    expect(script).toBeDefined();
    expect(style).toBeDefined();

    for (const [asset, type] of [
      [script!, 'text/javascript; charset=utf-8'],
      [style!, 'text/css; charset=utf-8'],
    ] as const) {
      const answer = await stack.request(`/console/${asset}`);
      expect(answer.status).toBe(200);
      expect(answer.headers.get('content-type')).toBe(type);
      expect(answer.headers.get('cache-control')).toBe('public, max-age=31536000, immutable');
      expect(answer.headers.get('content-security-policy')).toBe(expectedCsp());
    }
  }, 60_000);

  test('config.json names the local provider, the console client, the audience and the API; not cached', async () => {
    const config = await stack.request('/console/config.json');
    expect(config.status).toBe(200);
    expect(config.headers.get('cache-control')).toBe('no-cache');
    expect(config.body).toEqual({
      issuer: `${stack.baseUrl}/oidc`,
      client_id: 'game-session-console',
      audience: process.env.JWT_AUDIENCE,
      api_base: '/api/org-api-keys',
    });
  });

  test('/console redirects to /console/ (the redirect URI); an unknown file is 404, another method 405', async () => {
    const bare = await stack.request('/console', { redirect: 'manual' });
    expect(bare.status).toBe(301);
    expect(bare.headers.get('location')).toBe('/console/');
    expect((await stack.request('/console/assets/nope.js')).status).toBe(404);
    expect((await stack.request('/console/../dev-credentials.json')).status).not.toBe(200);
    const posted = await stack.request('/console/', { method: 'POST', body: '{}' });
    expect(posted.status).toBe(405);
  });
});
