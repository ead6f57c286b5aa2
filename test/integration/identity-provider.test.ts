/**
 * The local identity provider: `oidc-provider` under `/oidc` on the local front.
 * The console's sign-in is performed over HTTP as a browser and the console would do it
 * (discovery → authorize → login form → consent by itself → code → token, PKCE, public client,
 * oauth4webapi as the client), and the access token it yields lists the keys. The service verifies
 * tokens through the provider's JWKS URL (no inline JWKS): tokens of another issuer, another
 * audience or another key are refused.
 */
import { afterAll, beforeAll, describe, expect, test } from '@jest/globals';
import { decodeJwt, decodeProtectedHeader, exportJWK, generateKeyPair, SignJWT } from 'jose';
import * as oauth from 'oauth4webapi';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { API_RESOURCE, CONSOLE_CLIENT_ID } from '../../infra/local/identity-provider.js';
import { DEMO_USERS } from '../../infra/local/seed.js';
import { createBearerVerifier } from '../../shared/platform/bearer.js';
import { loopbackJwksCache } from '../../infra/local/loopback-jwks.js';
import {
  authorizationRequest,
  browser,
  consoleSignIn,
  exchange,
  insecure,
  signIn,
  type ConsoleSignIn,
} from '../support/console-sign-in.js';
import { startStack, type Stack } from '../support/local-stack.js';

let stack: Stack;
let as: oauth.AuthorizationServer;
let flow: ConsoleSignIn;

beforeAll(async () => {
  stack = await startStack();
  flow = await consoleSignIn(stack);
  as = flow.as;
});
afterAll(() => stack.stop());

const listKeys = (accessToken: string) =>
  stack.request('/api/org-api-keys?org_id=1', { headers: { authorization: `Bearer ${accessToken}` } });

describe('discovery and keys', () => {
  test('the issuer is <baseUrl>/oidc; the console client’s flow is advertised', () => {
    expect(as.issuer).toBe(`${stack.baseUrl}/oidc`);
    expect(as.jwks_uri).toBe(`${stack.baseUrl}/oidc/jwks`);
    expect(as.code_challenge_methods_supported).toEqual(['S256']);
    expect(as.response_types_supported).toEqual(['code']);
    expect(as.scopes_supported).toEqual(expect.arrayContaining(['openid', 'profile']));
  });

  test('the JWKS holds the public half of the data folder’s key, and nothing private', async () => {
    const stored = JSON.parse(readFileSync(join(stack.dataDir, 'dev-issuer-key.json'), 'utf8'));
    const { keys } = (await stack.request('/oidc/jwks')).body;
    expect(keys).toEqual([expect.objectContaining({ kid: stored.kid, kty: 'RSA', n: stored.n, e: stored.e })]);
    for (const secret of ['d', 'p', 'q', 'dp', 'dq', 'qi']) expect(keys[0]).not.toHaveProperty(secret);
  });

  test('the service verifies through that JWKS URL, with no inline JWKS', () => {
    expect(process.env.JWT_JWKS_URL).toBe(as.jwks_uri);
    expect(process.env.JWT_JWKS).toBeUndefined();
    expect(process.env.JWT_ISSUER).toBe(as.issuer);
  });
});

describe('the console’s sign-in (authorization code + PKCE, public client)', () => {
  test('the login page lists every seeded demo user, without a password field', async () => {
    const { page } = await signIn(flow, 'acme-admin');
    expect(page.text).toContain('<label for="login">User</label>');
    expect(page.text).toContain('<select id="login" name="login">');
    expect(page.text).toContain('<button type="submit">Sign in</button>');
    const values = [...page.text.matchAll(/<option value="([^"]+)">/g)].map((m) => m[1]);
    expect(values).toEqual(DEMO_USERS.map((u) => u.subject));
    expect(page.text).not.toMatch(/type="password"/);
    expect(page.text).toMatch(/development/i);
    expect(page.headers.get('content-security-policy')).toContain("default-src 'none'");
  });

  test('signed in as acme-admin: a JWT access token for the service, which lists org 1’s keys', async () => {
    const { request, callback } = await signIn(flow, 'acme-admin');
    expect(`${callback.origin}${callback.pathname}`).toBe(flow.redirectUri);
    const tokens = await exchange(flow, callback, request);
    expect(tokens.token_type.toLowerCase()).toBe('bearer');
    const header = decodeProtectedHeader(tokens.access_token);
    const claims = decodeJwt(tokens.access_token);
    const stored = JSON.parse(readFileSync(join(stack.dataDir, 'dev-issuer-key.json'), 'utf8'));
    expect(header).toMatchObject({ alg: 'RS256', typ: 'at+jwt', kid: stored.kid });
    expect(claims).toMatchObject({ iss: as.issuer, aud: 'game-session-token-service', sub: 'acme-admin', client_id: CONSOLE_CLIENT_ID });
    expect(claims.exp! - claims.iat!).toBeLessThanOrEqual(12 * 3600);
    expect(oauth.getValidatedIdTokenClaims(tokens)).toMatchObject({ sub: 'acme-admin', iss: as.issuer, aud: CONSOLE_CLIENT_ID });

    const listed = await listKeys(tokens.access_token);
    expect(listed.status).toBe(200);
    expect(listed.body.data).toEqual(expect.arrayContaining([expect.objectContaining({ org_id: 1 })]));
  });

  test('another demo user gets their own subject, and their role decides (an editor may not list keys)', async () => {
    const { request, callback } = await signIn(flow, 'acme-member');
    const tokens = await exchange(flow, callback, request);
    expect(decodeJwt(tokens.access_token).sub).toBe('acme-member');
    expect((await listKeys(tokens.access_token)).status).toBe(403);
  });

  test('asked for a consent prompt, consent is still granted by itself (one more hop, no page)', async () => {
    const { request, callback, hops } = await signIn(flow, 'acme-admin', { prompt: 'consent' });
    expect(hops).toEqual([
      expect.stringMatching(/^\/oidc\/auth\//),
      expect.stringMatching(/^\/oidc\/interaction\//),
      expect.stringMatching(/^\/oidc\/auth\//),
    ]);
    const tokens = await exchange(flow, callback, request);
    expect((await listKeys(tokens.access_token)).status).toBe(200);
  });

  test('naming the resource explicitly gives the same token audience', async () => {
    const { request, callback } = await signIn(flow, 'acme-admin', { resource: API_RESOURCE });
    const tokens = await exchange(flow, callback, request);
    expect(decodeJwt(tokens.access_token).aud).toBe('game-session-token-service');
  });

  test('a refresh token comes with the code; it yields a fresh access token that works', async () => {
    const { request, callback } = await signIn(flow, 'acme-admin', { scope: 'openid profile offline_access' });
    const tokens = await exchange(flow, callback, request);
    expect(tokens.refresh_token).toEqual(expect.any(String));
    const refreshed = await oauth.processRefreshTokenResponse(
      as,
      flow.client,
      await oauth.refreshTokenGrantRequest(as, flow.client, oauth.None(), tokens.refresh_token!, insecure),
    );
    stack.secrets.noteJwt(refreshed.access_token);
    expect(refreshed.access_token).not.toBe(tokens.access_token);
    expect((await listKeys(refreshed.access_token)).status).toBe(200);
  });

  test('PKCE is required: no code_challenge is refused; a wrong code_verifier gets no token', async () => {
    const request = await authorizationRequest(flow);
    request.url.searchParams.delete('code_challenge');
    request.url.searchParams.delete('code_challenge_method');
    const refused = await browser().go(request.url);
    expect(new URL(refused.location!).searchParams.get('error')).toBe('invalid_request');

    const { request: ok, callback } = await signIn(flow, 'acme-admin');
    await expect(exchange(flow, callback, { ...ok, verifier: oauth.generateRandomCodeVerifier() })).rejects.toMatchObject({
      error: 'invalid_grant',
    });
  });

  test('a user who is not a demo user cannot sign in; the form is shown again', async () => {
    const request = await authorizationRequest(flow);
    const b = browser();
    const loginUrl = new URL((await b.go(request.url)).location!, stack.baseUrl);
    const posted = await b.go(loginUrl, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: 'login=mallory',
    });
    expect(posted.status).toBe(400);
    expect(posted.text).toContain('<select id="login" name="login">');
  });

  test('sign-out: a confirmation page of the provider, then back to the console; the next sign-in asks again', async () => {
    const { browser: b } = await signIn(flow, 'acme-admin');
    const end = new URL(as.end_session_endpoint!);
    end.search = new URLSearchParams({ client_id: CONSOLE_CLIENT_ID, post_logout_redirect_uri: flow.redirectUri }).toString();
    const confirm = await b.go(end);
    expect(confirm.status).toBe(200);
    expect(confirm.text).toContain('<button type="submit" form="op.logoutForm" name="logout" value="yes">Sign out</button>');
    const action = /<form id="op.logoutForm" method="post" action="([^"]+)">/.exec(confirm.text)?.[1];
    const xsrf = /name="xsrf" value="([^"]+)"/.exec(confirm.text)?.[1];
    const out = await b.go(action!, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ xsrf: xsrf!, logout: 'yes' }).toString(),
    });
    expect(out.status).toBe(303);
    expect(out.location).toBe(flow.redirectUri);
    const again = await b.go((await authorizationRequest(flow)).url);
    expect(new URL(again.location!, stack.baseUrl).pathname).toMatch(/^\/oidc\/interaction\//);
  });

  test('silent renewal (prompt=none): a code at once while signed in; login_required when not', async () => {
    const { browser: b } = await signIn(flow, 'acme-admin');
    // The console also sends `audience` (Auth0's parameter); this provider ignores it.
    const silent = await authorizationRequest(flow, { prompt: 'none', audience: 'game-session-token-service' });
    const answered = await b.go(silent.url);
    expect(answered.status).toBe(303);
    const callback = new URL(answered.location!);
    expect(`${callback.origin}${callback.pathname}`).toBe(flow.redirectUri);
    const tokens = await exchange(flow, callback, silent);
    expect(decodeJwt(tokens.access_token)).toMatchObject({ sub: 'acme-admin', aud: 'game-session-token-service' });

    const stranger = await browser().go((await authorizationRequest(flow, { prompt: 'none' })).url);
    expect(new URL(stranger.location!).searchParams.get('error')).toBe('login_required');
  });

  test('another redirect URI than the console’s is refused', async () => {
    const request = await authorizationRequest(flow, { redirect_uri: 'https://evil.example/console/' });
    const refused = await browser().go(request.url);
    expect(refused.status).toBe(400);
    expect(refused.location).toBeNull();
  });
});

describe('tokens the service refuses (verified through the JWKS URL)', () => {
  /** A verifier as the local run builds one (its loopback JWKS cache), but new: its JWKS is fetched from the provider now. */
  const freshVerifier = () =>
    createBearerVerifier(
      { JWT_ISSUER: as.issuer, JWT_AUDIENCE: 'game-session-token-service', JWT_JWKS_URL: as.jwks_uri! },
      { jwksCache: loopbackJwksCache() },
    );

  test('a fresh verifier fetches the JWKS from the provider and accepts its token', async () => {
    const { request, callback } = await signIn(flow, 'globex-admin');
    const tokens = await exchange(flow, callback, request);
    const fetched: string[] = [];
    const inner = globalThis.fetch;
    globalThis.fetch = async (input, init) => {
      fetched.push(String(input instanceof Request ? input.url : input));
      return inner(input, init);
    };
    try {
      await expect(freshVerifier().verify(`Bearer ${tokens.access_token}`)).resolves.toEqual({ subject: 'globex-admin' });
    } finally {
      globalThis.fetch = inner;
    }
    expect(fetched).toEqual([as.jwks_uri]);
  });

  test('another issuer with its own key: 401 (its key is not in this JWKS)', async () => {
    const { privateKey, publicKey } = await generateKeyPair('RS256');
    const kid = (await exportJWK(publicKey)).n!.slice(0, 8);
    const foreign = await new SignJWT({ client_id: CONSOLE_CLIENT_ID })
      .setProtectedHeader({ alg: 'RS256', kid, typ: 'at+jwt' })
      .setIssuer('https://idp.elsewhere.example/oidc')
      .setAudience('game-session-token-service')
      .setSubject('acme-admin')
      .setIssuedAt()
      .setExpirationTime('1h')
      .sign(privateKey);
    const res = await listKeys(foreign);
    expect(res.status).toBe(401);
    expect(res.body.error).toMatch(/signing key is unknown/);
  });

  test('the provider’s key, another issuer: 401 (issuer)', async () => {
    const res = await listKeys(await stack.issuer.sign('acme-admin', { issuer: 'https://idp.elsewhere.example/oidc' }));
    expect(res.status).toBe(401);
    expect(res.body.error).toMatch(/issuer/);
  });

  test('this issuer’s claims signed by a key its JWKS does not hold: 401 (signing key unknown)', async () => {
    const { privateKey } = await generateKeyPair('RS256');
    const forged = await new SignJWT({})
      .setProtectedHeader({ alg: 'RS256', kid: 'not-in-the-jwks' })
      .setIssuer(as.issuer)
      .setAudience('game-session-token-service')
      .setSubject('acme-admin')
      .setIssuedAt()
      .setExpirationTime('1h')
      .sign(privateKey);
    const res = await listKeys(forged);
    expect(res.status).toBe(401);
    expect(res.body.error).toMatch(/signing key is unknown/);
  });

  test('the provider’s key and issuer, another audience: 401 (audience)', async () => {
    const res = await listKeys(await stack.issuer.sign('acme-admin', { audience: 'another-service' }));
    expect(res.status).toBe(401);
    expect(res.body.error).toMatch(/audience/);
  });
});
