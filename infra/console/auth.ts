/**
 * Sign-in with the organization's OIDC provider: authorization code flow with PKCE as a public
 * client (oauth4webapi; no secret in the browser). Tokens live in this module's memory only: a
 * script injected into the page could read sessionStorage as easily, but a token in memory is gone
 * with the tab and never written to disk. A reload (or an expired token) signs in again by a
 * redirect to the provider, which answers at once from its own session (`prompt=none`). Only the
 * PKCE verifier, the state and the page to return to cross the redirect, in sessionStorage, and are
 * removed as soon as the answer is back.
 */
import * as oauth from 'oauth4webapi';
import { redirectUri, type ConsoleConfig } from './config';
import { parseSignedInAt } from './renewal';

/** The signed-in admin, as the console knows them. */
export interface Session {
  readonly accessToken: string;
  /** When the access token stops being accepted (ms since the epoch). */
  readonly expiresAt: number;
  readonly subject: string;
  readonly name: string;
  readonly idToken: string | undefined;
}

const PENDING = 'console.pending-sign-in';
/**
 * Set while this tab has signed in once (a reload then signs in again without asking): the time the
 * last sign-in completed, never a token. A 401 soon after it is shown rather than redirected (renewal.ts).
 */
const SIGNED_IN = 'console.signed-in';

interface Pending {
  readonly verifier: string;
  readonly state: string;
  readonly nonce: string;
  /** The console page (hash route) to come back to. */
  readonly route: string;
  readonly silent: boolean;
}

let server: oauth.AuthorizationServer | undefined;

/** http:// is allowed for a provider on this machine only (the local run). */
function insecureOk(config: ConsoleConfig): Record<symbol, boolean> {
  const host = new URL(config.issuer).hostname;
  return host === 'localhost' || host === '127.0.0.1' ? { [oauth.allowInsecureRequests]: true } : {};
}

/** The provider's metadata, discovered from the issuer once per page. */
async function authorizationServer(config: ConsoleConfig): Promise<oauth.AuthorizationServer> {
  if (!server) {
    const issuer = new URL(config.issuer);
    const response = await oauth.discoveryRequest(issuer, { algorithm: 'oidc', ...insecureOk(config) });
    server = await oauth.processDiscoveryResponse(issuer, response);
  }
  return server;
}

const client = (config: ConsoleConfig): oauth.Client => ({ client_id: config.client_id });

/** Leave for the provider's authorization endpoint; `silent` asks it not to show any page (`prompt=none`). */
export async function signIn(config: ConsoleConfig, silent: boolean): Promise<never> {
  const as = await authorizationServer(config);
  if (!as.authorization_endpoint) throw new Error('The identity provider has no authorization endpoint');
  const pending: Pending = {
    verifier: oauth.generateRandomCodeVerifier(),
    state: oauth.generateRandomState(),
    nonce: oauth.generateRandomNonce(),
    route: location.hash,
    silent,
  };
  const url = new URL(as.authorization_endpoint);
  url.search = new URLSearchParams({
    client_id: config.client_id,
    redirect_uri: redirectUri(),
    response_type: 'code',
    scope: 'openid profile',
    code_challenge: await oauth.calculatePKCECodeChallenge(pending.verifier),
    code_challenge_method: 'S256',
    state: pending.state,
    nonce: pending.nonce,
    ...(config.audience ? { audience: config.audience } : {}),
    ...(silent ? { prompt: 'none' } : {}),
  }).toString();
  sessionStorage.setItem(PENDING, JSON.stringify(pending));
  location.assign(url);
  return new Promise<never>(() => undefined);
}

/** What the page load found: a session, or why there is none (to offer the sign-in button). */
export type Arrival = { readonly session: Session } | { readonly signedOut: string | undefined };

/**
 * On load: finish a sign-in the provider answered (code or error in the query), else sign in
 * silently if this tab was signed in before, else report "signed out".
 */
export async function arrive(config: ConsoleConfig): Promise<Arrival> {
  const params = new URLSearchParams(location.search);
  const stored = sessionStorage.getItem(PENDING);
  if (stored && (params.has('code') || params.has('error'))) {
    sessionStorage.removeItem(PENDING);
    const pending = JSON.parse(stored) as Pending;
    history.replaceState(null, '', `${redirectUri()}${pending.route}`);
    if (params.get('error') && pending.silent) return { signedOut: undefined };
    const session = await exchange(config, pending, params);
    sessionStorage.setItem(SIGNED_IN, String(Date.now()));
    return { session };
  }
  if (sessionStorage.getItem(SIGNED_IN)) return signIn(config, true);
  return { signedOut: undefined };
}

/** Trade the authorization code for tokens (the PKCE verifier proves this page started the flow). */
async function exchange(config: ConsoleConfig, pending: Pending, params: URLSearchParams): Promise<Session> {
  const as = await authorizationServer(config);
  const callback = oauth.validateAuthResponse(as, client(config), params, pending.state);
  const response = await oauth.authorizationCodeGrantRequest(
    as,
    client(config),
    oauth.None(),
    callback,
    redirectUri(),
    pending.verifier,
    insecureOk(config),
  );
  const tokens = await oauth.processAuthorizationCodeResponse(as, client(config), response, { expectedNonce: pending.nonce });
  const claims = oauth.getValidatedIdTokenClaims(tokens);
  const subject = String(claims?.sub ?? '');
  return {
    accessToken: tokens.access_token,
    expiresAt: Date.now() + (tokens.expires_in ?? 3600) * 1000,
    subject,
    name: typeof claims?.name === 'string' ? claims.name : subject,
    idToken: tokens.id_token,
  };
}

/** When this tab's last sign-in completed (ms since the epoch), if it has signed in. */
export const signedInAt = (): number | undefined => parseSignedInAt(sessionStorage.getItem(SIGNED_IN));

/** Sign out at the provider too (its end-session endpoint), then come back to the console's start. */
export async function signOut(config: ConsoleConfig, session: Session): Promise<void> {
  sessionStorage.removeItem(SIGNED_IN);
  const as = await authorizationServer(config);
  if (!as.end_session_endpoint) {
    location.assign(redirectUri());
    return;
  }
  const url = new URL(as.end_session_endpoint);
  url.search = new URLSearchParams({
    client_id: config.client_id,
    post_logout_redirect_uri: redirectUri(),
    ...(session.idToken ? { id_token_hint: session.idToken } : {}),
  }).toString();
  location.assign(url);
}
