/**
 * The admin console's entry: read the settings, finish or start the sign-in, then show the app.
 * Nothing runs inline (the CSP allows scripts from the console's own origin only).
 */
import 'uplot/dist/uPlot.min.css';
import './styles.css';
import { render } from 'preact';
import { createApi } from './api';
import { App } from './app';
import { arrive, signIn, signOut, type Session } from './auth';
import { loadConfig, type ConsoleConfig } from './config';
import { SignInPage } from './pages/sign-in';

const root = document.getElementById('app')!;
// The "Loading" placeholder of index.html goes; Preact owns the element from now on.
root.textContent = '';

/** Before the token expires (a minute early), sign in again through the provider's session. */
function renewBeforeExpiry(config: ConsoleConfig, session: Session): void {
  const delay = Math.max(session.expiresAt - Date.now() - 60_000, 5_000);
  // setTimeout holds at most 2^31-1 ms; tokens last hours.
  setTimeout(() => void signIn(config, true), Math.min(delay, 2_147_483_647));
}

/** The message of anything that failed. */
const messageOf = (error: unknown) => (error instanceof Error ? error.message : String(error));

async function start(config: ConsoleConfig): Promise<void> {
  const arrival = await arrive(config);
  if (!('session' in arrival)) {
    render(<SignInPage onSignIn={() => void signIn(config, false)} />, root);
    return;
  }
  const { session } = arrival;
  renewBeforeExpiry(config, session);
  const api = createApi(
    config.api_base,
    () => session.accessToken,
    () => signIn(config, true),
  );
  render(<App api={api} session={session} onSignOut={() => void signOut(config, session)} />, root);
}

// Without settings there is nothing to sign in with; a failed sign-in can be tried again.
loadConfig().then(
  (config) =>
    start(config).catch((error: unknown) => {
      render(<SignInPage failure={`Sign-in failed: ${messageOf(error)}`} onSignIn={() => void signIn(config, false)} />, root);
    }),
  (error: unknown) => render(<SignInPage failure={messageOf(error)} />, root),
);
