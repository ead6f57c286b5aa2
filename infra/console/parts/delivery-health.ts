/**
 * An endpoint's failure streak read from its deliveries: the service keeps it (`failing_since`, the
 * rule that disables an endpoint after five days of failures) but does not return it on the
 * endpoint's view, so the console reads it from the newest deliveries it lists.
 */

/** What the streak reads of a delivery (a `WebhookDelivery` of the deliveries list). */
export interface DeliveryOutcome {
  readonly status: 'pending' | 'succeeded' | 'failed' | 'exhausted';
  readonly attempts: number;
  readonly attempts_log: readonly { readonly at: string }[];
  readonly created_at: string;
}

/**
 * When the endpoint's deliveries started failing, read from the newest ones: the oldest of the
 * failures (failed or exhausted, attempted) since the last success, and whether the run goes past
 * the deliveries read (then it is "at least since"). Pending ones say nothing yet. Undefined when
 * the newest attempted delivery succeeded.
 */
export function failingSince(newest: readonly DeliveryOutcome[]): { since: string; atLeast: boolean } | undefined {
  let since: string | undefined;
  for (const delivery of newest) {
    if (delivery.status === 'pending' || delivery.attempts === 0) continue;
    if (delivery.status === 'succeeded') return since === undefined ? undefined : { since, atLeast: false };
    since = delivery.attempts_log[0]?.at ?? delivery.created_at;
  }
  return since === undefined ? undefined : { since, atLeast: true };
}
