/**
 * The seam through which a call can be made idempotent without the domain knowing how: the call
 * hands over its authentication (already in flight) and the rest of its work, and the gate decides
 * whether and when the work runs. The HTTP bundle supplies a gate backed by the idempotency store
 * when a request carries `Idempotency-Key`; without one the call runs directly.
 */

/** Sequences a call's authentication and its work. */
export interface OnceGate {
  /**
   * Run `work` once `authenticated` has settled successfully (its failure is the call's failure),
   * or not at all when the gate answers the call some other way (a stored answer).
   */
  run<T>(authenticated: Promise<unknown>, work: () => Promise<T>): Promise<T>;
}

/** No idempotency key: authenticate, then work. Adds no round trip. */
export const DIRECT: OnceGate = {
  run: async (authenticated, work) => {
    await authenticated;
    return work();
  },
};
