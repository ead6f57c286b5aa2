/**
 * The local run's identity provider: `oidc-provider` (a certified OpenID Connect server library)
 * mounted on the local front under `/oidc`, for development only. It has one client, the console
 * (public, PKCE), a login page listing the seeded demo users without any password
 * (`login-page.ts`), consent granted by itself, and JWT access tokens for this service's audience
 * signed with the key of the data folder. The service verifies them through the provider's JWKS
 * URL, as in production. Its state (sessions, codes, grants) lives in memory.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import Provider, { errors, type Configuration, type Grant, type OidcContext, type ProviderClient } from 'oidc-provider';
import type { DevSigningKey } from './dev-signing-key.js';
import { describeUser, errorPage, logoutPage, PAGE_HEADERS, serveInteraction, signedOutPage, type DemoUser } from './login-page.js';
import { memoryAdapter } from './provider-memory-adapter.js';

/** Path of the provider on the local front: the issuer is `<baseUrl>/oidc`. */
export const OIDC_PATH = '/oidc';

/** The console's client id (a public client: no secret, PKCE S256 required). */
export const CONSOLE_CLIENT_ID = 'game-session-console';

/**
 * The resource indicator (RFC 8707) of this service's API, the provider's default resource: a
 * client that names none gets a JWT access token for it. It is a URN because the library accepts
 * only absolute URIs as resource indicators; the tokens' `aud` is the audience itself.
 */
export const API_RESOURCE = 'urn:game-session-token-service';

/** Lifetime of access and ID tokens: 12 h (the service accepts at most `JWT_MAX_LIFETIME_SECONDS`, 24 h). */
const TOKEN_TTL_SECONDS = 12 * 3600;

/** OpenID scopes the console may ask for (`offline_access` for a refresh token). */
const OIDC_SCOPES = 'openid profile offline_access';

/** The running provider of a local service. */
export interface IdentityProvider {
  /** `<baseUrl>/oidc` */
  readonly issuer: string;
  /** Where the provider publishes its public keys (the service's `JWT_JWKS_URL`). */
  readonly jwksUri: string;
  /** The front's hook: serve a request under `/oidc`; false for any other path. */
  serve(req: IncomingMessage, res: ServerResponse, url: URL): Promise<boolean>;
}

/** What the provider is built from. */
export interface IdentityProviderOptions {
  readonly baseUrl: string;
  readonly key: DevSigningKey;
  /** The `aud` of its access tokens (the service's `JWT_AUDIENCE`). */
  readonly audience: string;
  /** Who may sign in (the seeded demo users). */
  readonly users: readonly DemoUser[];
}

/** Build the provider for a front listening on `baseUrl`. */
export function createIdentityProvider(options: IdentityProviderOptions): IdentityProvider {
  const issuer = `${options.baseUrl}${OIDC_PATH}`;
  const provider = new Provider(issuer, configuration(options));
  const listener = provider.callback();
  return {
    issuer,
    jwksUri: provider.urlFor('jwks'),
    async serve(req, res, url) {
      if (url.pathname !== OIDC_PATH && !url.pathname.startsWith(`${OIDC_PATH}/`)) return false;
      if (await serveInteraction(provider, options.users, req, res, url)) return true;
      // Mounted as connect would: the library builds its URLs from `originalUrl` minus `url`.
      Object.assign(req, { originalUrl: req.url, url: req.url!.slice(OIDC_PATH.length) || '/' });
      await listener(req, res);
      return true;
    },
  };
}

function configuration({ baseUrl, key, audience, users }: IdentityProviderOptions): Configuration {
  const known = new Map(users.map((u) => [u.subject, u]));
  return {
    adapter: memoryAdapter(),
    jwks: { keys: [key.privateJwk] },
    clients: [consoleClient(baseUrl)],
    scopes: OIDC_SCOPES.split(' '),
    responseTypes: ['code'],
    claims: { openid: ['sub'], profile: ['name', 'preferred_username'] },
    pkce: { required: () => true },
    findAccount: async (_ctx: OidcContext, sub: string) => {
      const user = known.get(sub);
      if (!user) return undefined;
      return { accountId: sub, claims: async () => ({ sub, preferred_username: sub, name: describeUser(user) }) };
    },
    interactions: { url: (_ctx: OidcContext, interaction: { uid: string }) => `${OIDC_PATH}/interaction/${interaction.uid}` },
    // The console is this provider's only client, and first party: consent is granted by itself.
    loadExistingGrant: (ctx: OidcContext) => consoleGrant(ctx),
    issueRefreshToken: async (_ctx: OidcContext, client: ProviderClient) => client.grantTypeAllowed('refresh_token'),
    clientBasedCORS: (_ctx: OidcContext, origin: string, client: ProviderClient) =>
      client.redirectUris.some((uri) => new URL(uri).origin === origin),
    renderError: async (ctx: PageContext, out: Record<string, unknown>) => html(ctx, errorPage(out)),
    ttl: TTL,
    features: {
      devInteractions: { enabled: false },
      resourceIndicators: apiResource(audience),
      rpInitiatedLogout: {
        enabled: true,
        logoutSource: async (ctx: PageContext, form: string) => html(ctx, logoutPage(form)),
        postLogoutSuccessSource: async (ctx: PageContext) => html(ctx, signedOutPage()),
      },
    },
  };
}

/**
 * Lifetimes, all set (the library prints a notice for each default it uses): tokens and a browser
 * session 12 h, a refresh token and its grant a day.
 */
const TTL = {
  AccessToken: TOKEN_TTL_SECONDS,
  IdToken: TOKEN_TTL_SECONDS,
  Session: TOKEN_TTL_SECONDS,
  Interaction: 3600,
  Grant: 2 * TOKEN_TTL_SECONDS,
  RefreshToken: 2 * TOKEN_TTL_SECONDS,
};

/** The console's registration: a public client (no secret), code flow with PKCE, back to `/console/`. */
function consoleClient(baseUrl: string): Record<string, unknown> {
  const consoleUrl = `${baseUrl}/console/`;
  return {
    client_id: CONSOLE_CLIENT_ID,
    client_name: 'Game Session Token Service console',
    application_type: 'web',
    token_endpoint_auth_method: 'none',
    redirect_uris: [consoleUrl],
    post_logout_redirect_uris: [consoleUrl],
    grant_types: ['authorization_code', 'refresh_token'],
    response_types: ['code'],
    scope: OIDC_SCOPES,
  };
}

/** Resource indicators: this service's API is the only resource, and the default one; its tokens are JWTs. */
function apiResource(audience: string): Record<string, unknown> {
  return {
    enabled: true,
    defaultResource: async (_ctx: OidcContext, _client: ProviderClient, oneOf?: string[]) =>
      oneOf && !oneOf.includes(API_RESOURCE) ? oneOf : API_RESOURCE,
    // With the `openid` scope and no `resource` at the token endpoint, still this API's token.
    useGrantedResource: async () => true,
    getResourceServerInfo: async (_ctx: OidcContext, resource: string) => {
      if (resource !== API_RESOURCE) throw new errors.InvalidTarget(`the only resource is ${API_RESOURCE}`);
      return { scope: '', audience, accessTokenFormat: 'jwt', accessTokenTTL: TOKEN_TTL_SECONDS, jwt: { sign: { alg: 'RS256' } } };
    },
  };
}

/** The Koa context a page is written to. */
interface PageContext {
  type: string;
  body: string;
  set(name: string, value: string): void;
}

/** Answer a page of `login-page.ts`, with its headers. */
function html(ctx: PageContext, body: string): void {
  ctx.type = 'html';
  for (const [name, value] of Object.entries(PAGE_HEADERS)) ctx.set(name, value);
  ctx.body = body;
}

/**
 * The session's grant to the console, or else a new one of everything the console may ask for:
 * consent without a page.
 */
async function consoleGrant(ctx: OidcContext): Promise<Grant | undefined> {
  const { client, session, provider, result } = ctx.oidc;
  if (client?.clientId !== CONSOLE_CLIENT_ID || !session?.accountId) return undefined;
  const existing = result?.consent?.grantId ?? session.grantIdFor(client.clientId);
  const found = existing ? await provider.Grant.find(existing) : undefined;
  if (found) return found;
  const grant = new provider.Grant({ accountId: session.accountId, clientId: client.clientId });
  grant.addOIDCScope(OIDC_SCOPES);
  grant.addResourceScope(API_RESOURCE, '');
  await grant.save();
  return grant;
}
