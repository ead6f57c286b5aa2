/**
 * The console's sign-in at the local identity provider, performed over HTTP as a browser and the
 * console would (oauth4webapi as the client: discovery, PKCE, code exchange), each step checked.
 */
import { expect } from '@jest/globals';
import * as oauth from 'oauth4webapi';
import { CONSOLE_CLIENT_ID } from '../../infra/local/identity-provider.js';
import type { Stack } from './local-stack.js';

/** The console as an OAuth client of a stack's provider. */
export interface ConsoleSignIn {
  readonly stack: Stack;
  readonly as: oauth.AuthorizationServer;
  readonly client: oauth.Client;
  /** `<baseUrl>/console/`, the client's one redirect URI. */
  readonly redirectUri: string;
}

/** The local provider answers over plain HTTP. */
export const insecure = { [oauth.allowInsecureRequests]: true } as const;

/** Discover the provider of `stack`. */
export async function consoleSignIn(stack: Stack): Promise<ConsoleSignIn> {
  const issuer = new URL(stack.identityProvider.issuer);
  const as = await oauth.processDiscoveryResponse(issuer, await oauth.discoveryRequest(issuer, insecure));
  const client = { client_id: CONSOLE_CLIENT_ID, token_endpoint_auth_method: 'none' };
  return { stack, as, client, redirectUri: `${stack.baseUrl}/console/` };
}

/** A browser: keeps the provider's cookies, never follows a redirect by itself. */
export function browser() {
  const cookies = new Map<string, string>();
  const go = async (url: string | URL, init: RequestInit = {}) => {
    const cookie = [...cookies].map(([k, v]) => `${k}=${v}`).join('; ');
    const res = await fetch(url, { ...init, redirect: 'manual', headers: { ...(init.headers as Record<string, string>), cookie } });
    for (const line of res.headers.getSetCookie()) {
      const [pair] = line.split(';');
      cookies.set(pair!.slice(0, pair!.indexOf('=')), pair!.slice(pair!.indexOf('=') + 1));
    }
    return { status: res.status, location: res.headers.get('location'), text: await res.text(), headers: res.headers };
  };
  return { go };
}

/** An authorization request of the console: PKCE S256, `openid profile`, a state. */
export async function authorizationRequest(flow: ConsoleSignIn, extra: Record<string, string> = {}) {
  const verifier = oauth.generateRandomCodeVerifier();
  const state = oauth.generateRandomState();
  const url = new URL(flow.as.authorization_endpoint!);
  url.search = new URLSearchParams({
    client_id: CONSOLE_CLIENT_ID,
    redirect_uri: flow.redirectUri,
    response_type: 'code',
    scope: 'openid profile',
    state,
    code_challenge: await oauth.calculatePKCECodeChallenge(verifier),
    code_challenge_method: 'S256',
    ...extra,
  }).toString();
  return { url, verifier, state };
}

/** Authorize, sign in on the login page as `subject`, and come back with the code to the console. */
export async function signIn(flow: ConsoleSignIn, subject: string, extra: Record<string, string> = {}) {
  const { baseUrl } = flow.stack;
  const request = await authorizationRequest(flow, extra);
  const b = browser();
  const toLogin = await b.go(request.url);
  expect(toLogin.status).toBe(303);
  const loginUrl = new URL(toLogin.location!, baseUrl);
  expect(loginUrl.pathname).toMatch(/^\/oidc\/interaction\/[\w-]+$/);
  const page = await b.go(loginUrl);
  const action = /<form method="post" action="([^"]+)">/.exec(page.text)?.[1];
  expect(action).toBe(loginUrl.pathname);
  const posted = await b.go(new URL(action!, baseUrl), {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ login: subject }).toString(),
  });
  expect(posted.status).toBe(303);
  // Back at the authorization endpoint, which grants consent by itself (through the interaction URL
  // again when the request asked for a consent prompt) and redirects to the console.
  const hops: string[] = [];
  let next = new URL(posted.location!, baseUrl);
  while (next.pathname.startsWith('/oidc/') && hops.length < 4) {
    hops.push(next.pathname);
    const res = await b.go(next);
    expect(res.status).toBe(303);
    next = new URL(res.location!, baseUrl);
  }
  return { request, page, callback: next, hops, browser: b };
}

/** The code of `callback` exchanged at the token endpoint, as the console does. */
export async function exchange(flow: ConsoleSignIn, callback: URL, request: { state: string; verifier: string }) {
  const { as, client } = flow;
  const params = oauth.validateAuthResponse(as, client, callback, request.state);
  const response = await oauth.authorizationCodeGrantRequest(
    as,
    client,
    oauth.None(),
    params,
    flow.redirectUri,
    request.verifier,
    insecure,
  );
  const tokens = await oauth.processAuthorizationCodeResponse(as, client, response);
  flow.stack.secrets.noteJwt(tokens.access_token);
  return tokens;
}
