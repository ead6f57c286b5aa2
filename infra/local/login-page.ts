/**
 * The local identity provider's interaction pages, at `/oidc/interaction/<uid>` (where the
 * provider sends the browser when someone must sign in): a form to pick one of the seeded demo
 * users, posted back to the same URL. No password: it is a development provider. Consent, if the
 * provider ever asks for it, is granted without a page (the console is a first-party client).
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import type Provider from 'oidc-provider';
import type { InteractionDetails } from 'oidc-provider';

/** A user who may sign in (the seed's `DEMO_USERS`). */
export interface DemoUser {
  readonly subject: string;
  readonly org_id: number;
  readonly role: string;
}

const INTERACTION_PATH = /^\/oidc\/interaction\/([A-Za-z0-9_-]{1,64})$/;

/** Largest login form read (one short field). */
const FORM_LIMIT = 4096;

/** How the login page and the `name` claim show a demo user. */
export function describeUser(user: DemoUser): string {
  return `${user.subject} (${user.role} of organization ${user.org_id})`;
}

/** Serve an interaction URL; false for any other path. */
export async function serveInteraction(
  provider: Provider,
  users: readonly DemoUser[],
  req: IncomingMessage,
  res: ServerResponse,
  url: URL,
): Promise<boolean> {
  const uid = INTERACTION_PATH.exec(url.pathname)?.[1];
  if (!uid) return false;
  if (req.method !== 'GET' && req.method !== 'POST') {
    page(res, 405, message('Method not allowed', 'Open this page from the console’s sign-in link.'), { allow: 'GET, POST' });
    return true;
  }
  let details: InteractionDetails;
  try {
    // Read from the interaction cookie, which only the browser that started the sign-in holds.
    details = await provider.interactionDetails(req, res);
  } catch {
    page(res, 400, message('Sign-in expired', 'This sign-in has expired or was already used. Start again from the console.'));
    return true;
  }
  if (details.uid !== uid) {
    page(res, 400, message('Sign-in mismatch', 'This page belongs to another sign-in. Start again from the console.'));
  } else if (details.prompt.name === 'consent') {
    await provider.interactionFinished(req, res, { consent: { grantId: await grantConsent(provider, details) } });
  } else if (req.method === 'GET') {
    page(res, 200, loginForm(uid, users));
  } else {
    await finishLogin(provider, users, uid, req, res);
  }
  return true;
}

/** The posted form names a demo user: signed in as that user, back to the authorization endpoint. */
async function finishLogin(provider: Provider, users: readonly DemoUser[], uid: string, req: IncomingMessage, res: ServerResponse) {
  const login = new URLSearchParams(await readForm(req)).get('login');
  if (!login || !users.some((u) => u.subject === login)) {
    page(res, 400, loginForm(uid, users, 'Choose one of the demo users.'));
    return;
  }
  // `remember: false`: a browser session cookie, so closing the browser signs out.
  await provider.interactionFinished(req, res, { login: { accountId: login, remember: false } }, { mergeWithLastSubmission: false });
}

/** Grant what the provider found missing (the library's own recipe), for the only client there is. */
async function grantConsent(provider: Provider, details: InteractionDetails): Promise<string> {
  const { missingOIDCScope, missingOIDCClaims, missingResourceScopes } = details.prompt.details as {
    missingOIDCScope?: string[];
    missingOIDCClaims?: string[];
    missingResourceScopes?: Record<string, string[]>;
  };
  const existing = details.grantId ? await provider.Grant.find(details.grantId) : undefined;
  const grant = existing ?? new provider.Grant({ accountId: details.session!.accountId, clientId: String(details.params.client_id) });
  if (missingOIDCScope) grant.addOIDCScope(missingOIDCScope.join(' '));
  if (missingOIDCClaims) grant.addOIDCClaims(missingOIDCClaims);
  for (const [resource, scopes] of Object.entries(missingResourceScopes ?? {})) grant.addResourceScope(resource, scopes.join(' '));
  return grant.save();
}

function readForm(req: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    req.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size <= FORM_LIMIT) chunks.push(chunk);
    });
    req.on('end', () => resolve(size > FORM_LIMIT ? '' : Buffer.concat(chunks).toString('utf8')));
    req.on('error', reject);
  });
}

/** The sign-in form (its markup is what the console's browser tests drive: keep label, ids and button). */
function loginForm(uid: string, users: readonly DemoUser[], error?: string): string {
  const options = users.map((u) => `<option value="${escape(u.subject)}">${escape(describeUser(u))}</option>`).join('\n        ');
  return document(
    'Sign in',
    `<h1>Sign in</h1>
    <p>Local development identity provider of the Game Session Token Service. There is no password:
    pick one of the seeded demo users. For development only; never expose it.</p>
    ${error ? `<p role="alert">${escape(error)}</p>` : ''}
    <form method="post" action="/oidc/interaction/${escape(uid)}">
      <label for="login">User</label>
      <select id="login" name="login">
        ${options}
      </select>
      <button type="submit">Sign in</button>
    </form>`,
  );
}

/**
 * The provider's sign-out confirmation (`features.rpInitiatedLogout.logoutSource`): its own `form`
 * (hidden fields, posted to the provider) and the two answers, instead of the library's page, which
 * loads a third-party font.
 */
export function logoutPage(form: string): string {
  return document(
    'Sign out',
    `<h1>Sign out of the local development provider?</h1>
    ${form}
    <button type="submit" form="op.logoutForm" name="logout" value="yes">Sign out</button>
    <button type="submit" form="op.logoutForm">Stay signed in</button>`,
  );
}

/** After a sign-out that names no page to return to (`postLogoutSuccessSource`). */
export function signedOutPage(): string {
  return message('Signed out', 'You are signed out of the local development identity provider.');
}

/** An error the provider shows the browser (`renderError`): its code and description, escaped. */
export function errorPage(out: Record<string, unknown>): string {
  const lines = Object.entries(out).map(([key, value]) => `<p><strong>${escape(key)}</strong>: ${escape(String(value))}</p>`);
  return document('Sign-in error', `<h1>Sign-in error</h1>\n    ${lines.join('\n    ')}`);
}

function message(title: string, text: string): string {
  return document(title, `<h1>${escape(title)}</h1>\n    <p>${escape(text)}</p>`);
}

function document(title: string, body: string): string {
  return `<!doctype html>
<html lang="en">
  <head>
    <meta charset="utf-8">
    <meta name="viewport" content="width=device-width, initial-scale=1">
    <title>${escape(title)} · local development provider</title>
  </head>
  <body>
    <main>
    ${body}
    </main>
  </body>
</html>
`;
}

/** Headers of every page of the provider: no script, no style, no frame; forms post to this origin only. */
export const PAGE_HEADERS: Readonly<Record<string, string>> = {
  'cache-control': 'no-store',
  'x-content-type-options': 'nosniff',
  'content-security-policy': "default-src 'none'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'",
};

function page(res: ServerResponse, status: number, html: string, headers: Record<string, string> = {}): void {
  res.writeHead(status, { 'content-type': 'text/html; charset=utf-8', ...PAGE_HEADERS, ...headers });
  res.end(html);
}

function escape(text: string): string {
  return text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}
