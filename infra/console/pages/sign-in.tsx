/** The page shown before sign-in, or when the sign-in failed. */
import { useEffect, useRef } from 'preact/hooks';

/** Props of {@link SignInPage}. */
export interface SignInProps {
  /** Absent: nothing to sign in with (the failure is all there is to show). */
  readonly onSignIn?: () => void;
  readonly failure?: string;
  /** The button's text ("Sign in again" after a refusal). */
  readonly signInLabel?: string;
}

/** "Sign in with your organization's identity provider", or why the console cannot start. */
export function SignInPage({ onSignIn, failure, signInLabel = 'Sign in with your identity provider' }: SignInProps) {
  const heading = useRef<HTMLHeadingElement>(null);
  useEffect(() => heading.current?.focus(), []);
  return (
    <main id="main" class="narrow">
      <h1 tabIndex={-1} ref={heading}>
        Game Session Tokens console
      </h1>
      {failure && (
        <p class="notice error" role="alert">
          {failure}
        </p>
      )}
      <p>Manage your organization’s API keys, see their usage and the audit log, and configure games and streams.</p>
      {onSignIn && (
        <button type="button" class="primary" onClick={onSignIn}>
          {signInLabel}
        </button>
      )}
    </main>
  );
}
