/**
 * When the console signs in again, as pure decisions (no DOM, no storage: the unit tier tests them).
 * It renews on the next API call once the token has expired, never on a timer: a timer could leave
 * the page while a dialog shows a raw key that is shown only once. It never leaves the page while a
 * dialog is open, and a 401 right after a sign-in is shown, not answered by another redirect: a
 * provider whose tokens the API refuses (a wrong audience, say) would otherwise redirect forever.
 */

/** A 401 within this long of the last completed sign-in is shown, not retried. */
export const RECENT_SIGN_IN_MS = 60_000;

/** A token this close to its expiry is renewed before a call (the call may take a while to land). */
export const EXPIRY_MARGIN_MS = 10_000;

/** What the decisions read. */
export interface RenewalFacts {
  readonly now: number;
  /** When the access token stops being accepted (ms since the epoch). */
  readonly expiresAt: number;
  /** When the last sign-in completed (ms since the epoch), if known. */
  readonly signedInAt: number | undefined;
  /** A dialog is open: leaving the page could lose what it shows (a raw key, a filled form). */
  readonly dialogOpen: boolean;
}

/** Before a call: send it, or sign in again first (the token has expired, and no dialog is open). */
export function beforeCall(facts: RenewalFacts): 'send' | 'renew' {
  return !facts.dialogOpen && facts.now >= facts.expiresAt - EXPIRY_MARGIN_MS ? 'renew' : 'send';
}

/**
 * After a 401: `fail` (a dialog is open: the call fails with the service's message, the next call
 * after it closes decides again), `report` (a sign-in has just completed: show the refusal with a
 * "Sign in again" button) or `renew` (sign in again silently).
 */
export function afterUnauthorized(facts: RenewalFacts): 'fail' | 'report' | 'renew' {
  if (facts.dialogOpen) return 'fail';
  // A time ahead of now (the clock moved back) counts as recent too: better shown than looped.
  if (facts.signedInAt !== undefined && facts.now - facts.signedInAt < RECENT_SIGN_IN_MS) return 'report';
  return 'renew';
}

/** The stored time of the last sign-in (a number of ms, as sessionStorage holds it), if it is one. */
export function parseSignedInAt(stored: string | null): number | undefined {
  if (stored === null) return undefined;
  const at = Number(stored);
  return Number.isFinite(at) && at > 0 ? at : undefined;
}
