/**
 * The REST operations the console calls, through openapi-fetch typed by the OpenAPI document's
 * generated types (test/support/openapi-paths.ts, `npm run openapi`): paths, parameters, bodies and
 * answers are the document's, none restated here. A call names the operation by its own path
 * (`/api/org-api-keys/<action>`) and goes out in the `?action=` form on `api_base` (the interface's
 * contract; the service answers both alike), with the signed-in admin's access token. A refusal becomes an {@link ApiError} carrying the service's own message
 * (the pages show it as is: it names the roles or the tier an operation needs).
 */

import createClient, { type Client } from 'openapi-fetch';
import { afterUnauthorized, beforeCall, type RenewalFacts } from './renewal';
import type { components, paths } from '../../test/support/openapi-paths.js';

/** A refused or failed call: the HTTP status, the service's message and its code. */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    message: string,
    readonly code: string,
  ) {
    super(message);
  }
}

/** How a page reaches the API: set once signed in. A call answers, or rejects with an {@link ApiError}. */
export type Api = Client<paths>;

/** The caller's view of an expired or rejected token: sign in again (it never returns). */
export type Reauthenticate = () => Promise<never>;

/** What the API needs from the sign-in: the token, and when and how to sign in again. */
export interface ApiAuth {
  readonly token: () => string;
  /** When the token stops being accepted (ms since the epoch). */
  readonly expiresAt: () => number;
  /** When the last sign-in completed (ms since the epoch), if known. */
  readonly signedInAt: () => number | undefined;
  /** A dialog is open: the console does not leave the page then. */
  readonly dialogOpen: () => boolean;
  /** Sign in again (silently): leaves the page. */
  readonly renew: Reauthenticate;
  /** A 401 right after a sign-in: show it, with a way to sign in again, instead of another redirect. */
  readonly refused: (error: ApiError) => void;
}

/** The service's envelope, as far as the console reads it. */
type Envelope = { success?: boolean; error?: string; code?: string };

const refusal = (status: number, answer: Envelope) =>
  new ApiError(status, answer.error ?? `The service answered ${status}`, answer.code ?? 'unknown');

/** Where the operations' own paths start: what follows is the action (nothing for the key CRUD). */
const ACTIONS = '/api/org-api-keys/';

/**
 * An {@link Api} on `base`. An expired token is renewed before the next call; a 401 is renewed too,
 * unless a sign-in has just completed (then it is shown: see renewal.ts). Neither while a dialog is open.
 */
export function createApi(base: string, auth: ApiAuth): Api {
  const facts = (): RenewalFacts => ({
    now: Date.now(),
    expiresAt: auth.expiresAt(),
    signedInAt: auth.signedInAt(),
    dialogOpen: auth.dialogOpen(),
  });
  // The request openapi-fetch built, sent in the `?action=` form (blank parameters left out); an
  // answer that is not a success envelope rejects the call.
  const send = async (request: Request): Promise<Response> => {
    if (beforeCall(facts()) === 'renew') return auth.renew();
    const { pathname, searchParams } = new URL(request.url);
    const action = pathname.slice(ACTIONS.length);
    const query = new URLSearchParams(action ? { action } : {});
    for (const [name, value] of searchParams) if (value !== '') query.append(name, value);
    request.headers.set('authorization', `Bearer ${auth.token()}`);
    const body = (await request.text()) || undefined;
    const response = await fetch(query.size ? `${base}?${query}` : base, { method: request.method, headers: request.headers, body });
    const copy = response.clone();
    const answer: Envelope = await copy.json().catch(() => ({}));
    if (response.status === 401) {
      const next = afterUnauthorized(facts());
      if (next === 'renew') return auth.renew();
      if (next === 'report') auth.refused(refusal(401, answer));
    }
    if (!response.ok || answer.success !== true) throw refusal(response.status, answer);
    return response;
  };
  return createClient<paths>({ fetch: send });
}

/** The data of a call's answer, its envelope's `data` (anything but a success envelope has rejected the call). */
export const data = async <T>(call: Promise<{ data?: { data: T } }>): Promise<T> => (await call).data!.data;

/** A call's parameters on one organization: its id (a query string, as the document types it) and the rest of the query. */
export const ofOrg = <Q extends object>(orgId: number, query = {} as Q) => ({ params: { query: { ...query, org_id: String(orgId) } } });

type Schemas = components['schemas'];
/** An API key as the list, create and update operations show it (never the raw key but at creation). */
export type ApiKey = Schemas['ApiKey'];
/** A created or rotated key: the raw value, shown once (a rotated one with the key it replaced). */
export type CreatedKey = Schemas['CreatedApiKey'] | Schemas['RotatedApiKey'];
/** The usage report. */
export type UsageReport = Schemas['SessionReport'];
/** One counts object of the usage report (per day, per key per day, totals). */
export type UsageCounts = UsageReport['totals'];
/** One audit record. */
export type AuditRecord = Schemas['AuditRecord'];
/** What an update changed, field by field: before and after. */
export type AuditDiff = NonNullable<AuditRecord['diff']>;
/** A game or a stream of the org, with its "Require API Session Token" setting. */
export type Target = Schemas['Game'] | Schemas['Stream'];
/** One organization of the signed-in subject (list-orgs), with its role there. */
export type OrgMembership = Schemas['OrgMembership'];
/** A webhook endpoint as list-webhooks and update-webhook show it (never its secret). */
export type Webhook = Schemas['WebhookView'];
/** A registered endpoint with its signing secret, shown once. */
export type CreatedWebhook = Schemas['CreatedWebhook'];
/** A rotated secret, shown once, and until when the previous one signs too. */
export type RotatedWebhookSecret = Schemas['RotatedWebhookSecret'];
/** What a recovery sent (or, in a dry run, would send). */
export type WebhookRecovery = Schemas['WebhookRecovery'];
/** One delivery of an event to an endpoint, with its attempts. */
export type WebhookDelivery = Schemas['WebhookDelivery'];
/** One attempt of a delivery. */
export type WebhookAttempt = Schemas['WebhookDeliveryAttempt'];
