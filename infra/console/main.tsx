/**
 * The admin console's entry: read the settings, finish or start the sign-in, then show the app.
 * Nothing runs inline (the CSP allows scripts from the console's own origin only).
 */
import 'uplot/dist/uPlot.min.css';
import './styles.css';
import './views.css';
import { render } from 'preact';
import { createApi, type ApiError } from './api';
import { App } from './app';
import { arrive, signedInAt, signIn, signOut } from './auth';
import { loadConfig, type ConsoleConfig } from './config';
import { SignInPage } from './pages/sign-in';
import { failure } from './parts/load';

const root = document.getElementById('app')!;
// The "Loading" placeholder of index.html goes; Preact owns the element from now on.
root.textContent = '';

/**
 * The API refused a token the provider has just issued: say why (the service's message and code)
 * and offer a sign-in the admin starts, instead of redirecting again (it would loop).
 */
function showRefusal(config: ConsoleConfig, error: ApiError): void {
  render(
    <SignInPage
      failure={`The service refused the sign-in: ${error.message} (${error.code})`}
      signInLabel="Sign in again"
      onSignIn={() => void signIn(config, false)}
    />,
    root,
  );
}

async function start(config: ConsoleConfig): Promise<void> {
  const arrival = await arrive(config);
  if (!('session' in arrival)) {
    render(<SignInPage onSignIn={() => void signIn(config, false)} />, root);
    return;
  }
  const { session } = arrival;
  // No renewal timer: a redirect then could lose a raw key a dialog shows once. The API renews on
  // the next call after expiry or on a 401, never while a dialog is open (renewal.ts).
  const api = createApi(config.api_base, {
    token: () => session.accessToken,
    expiresAt: () => session.expiresAt,
    signedInAt,
    dialogOpen: () => document.querySelector('dialog[open]') !== null,
    renew: () => signIn(config, true),
    refused: (error) => showRefusal(config, error),
  });
  render(<App api={api} session={session} onSignOut={() => void signOut(config, session)} />, root);
}

// Without settings there is nothing to sign in with; a failed sign-in can be tried again.
loadConfig().then(
  (config) =>
    start(config).catch((error: unknown) => {
      render(<SignInPage failure={`Sign-in failed: ${failure(error).message}`} onSignIn={() => void signIn(config, false)} />, root);
    }),
  (error: unknown) => render(<SignInPage failure={failure(error).message} />, root),
);
