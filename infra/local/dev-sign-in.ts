/**
 * Signing a demo user in to the local identity provider without a browser: the console's own flow
 * (authorization code + PKCE, public client) driven over HTTP, the login form posted as a browser
 * would. `npm start` writes the resulting access tokens into `dev-credentials.json` and
 * `npm run token` prints one: every bearer token of the local run is issued by the provider itself,
 * through the same endpoints a browser uses.
 */
import * as oauth from 'oauth4webapi';
import { CONSOLE_CLIENT_ID } from './identity-provider.js';

/** The provider's answer: a JWT access token for the service, and the ID token. */
export interface SignedIn {
  readonly accessToken: string;
  readonly idToken: string | undefined;
  readonly expiresIn: number | undefined;
}

/** The console's registration (`identity-provider.ts`): its redirect URI on the front at `baseUrl`. */
const client: oauth.Client = { client_id: CONSOLE_CLIENT_ID, token_endpoint_auth_method: 'none' };

/** The local provider answers over plain HTTP on this machine. */
const insecure = { [oauth.allowInsecureRequests]: true } as const;

/** Sign `subject` in at the provider `issuer` (of the front at `baseUrl`) and return its tokens. */
export async function signInAs(issuer: string, baseUrl: string, subject: string): Promise<SignedIn> {
  const issuerUrl = new URL(issuer);
  const as = await oauth.processDiscoveryResponse(issuerUrl, await oauth.discoveryRequest(issuerUrl, insecure));
  const redirectUri = `${baseUrl}/console/`;
  const verifier = oauth.generateRandomCodeVerifier();
  const state = oauth.generateRandomState();
  const authorize = new URL(as.authorization_endpoint!);
  authorize.search = new URLSearchParams({
    client_id: CONSOLE_CLIENT_ID,
    redirect_uri: redirectUri,
    response_type: 'code',
    scope: 'openid profile',
    state,
    code_challenge: await oauth.calculatePKCECodeChallenge(verifier),
    code_challenge_method: 'S256',
  }).toString();

  const browser = cookieJar();
  const loginPage = await browser.expectRedirect(await browser.get(authorize));
  const form = new URLSearchParams({ login: subject });
  const resumed = await browser.post(loginPage, form);
  const callback = await browser.expectRedirect(await browser.get(await browser.expectRedirect(resumed)));

  const params = oauth.validateAuthResponse(as, client, callback, state);
  const response = await oauth.authorizationCodeGrantRequest(as, client, oauth.None(), params, redirectUri, verifier, insecure);
  const tokens = await oauth.processAuthorizationCodeResponse(as, client, response);
  return { accessToken: tokens.access_token, idToken: tokens.id_token, expiresIn: tokens.expires_in };
}

/** Requests that keep the provider's cookies and do not follow redirects (each one is checked). */
function cookieJar() {
  const cookies = new Map<string, string>();
  const keep = (res: Response) => {
    for (const line of res.headers.getSetCookie()) {
      const [pair] = line.split(';');
      const at = pair!.indexOf('=');
      cookies.set(pair!.slice(0, at).trim(), pair!.slice(at + 1).trim());
    }
    return res;
  };
  const cookie = () => [...cookies].map(([name, value]) => `${name}=${value}`).join('; ');
  return {
    get: async (url: URL) => keep(await fetch(url, { redirect: 'manual', headers: { cookie: cookie() } })),
    post: async (url: URL, form: URLSearchParams) =>
      keep(
        await fetch(url, {
          method: 'POST',
          redirect: 'manual',
          headers: { cookie: cookie(), 'content-type': 'application/x-www-form-urlencoded' },
          body: form,
        }),
      ),
    /** Where a redirect points; anything else is the provider refusing (its page says why). */
    expectRedirect: async (res: Response): Promise<URL> => {
      const location = res.headers.get('location');
      if (res.status < 300 || res.status > 399 || !location) {
        throw new Error(
          `sign-in at the local identity provider failed: ${res.status} from ${res.url}: ${(await res.text()).slice(0, 300)}`,
        );
      }
      return new URL(location, res.url);
    },
  };
}
