/**
 * The REST operations the console calls, by their `?action=` form on `api_base`, with the signed-in
 * admin's access token. A refusal becomes an {@link ApiError} carrying the service's own message
 * (the pages show it as is: it names the roles or the tier an operation needs).
 */

import { afterUnauthorized, beforeCall, type RenewalFacts } from './renewal';
import type * as z from 'zod/mini';
import type { AuditLogPage } from '../../shared/usage/audit-schemas.js';
import type { SessionReport } from '../../shared/usage/report-schemas.js';

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

/** How a page reaches the API: set once signed in. */
export interface Api {
  get<T>(action: string | undefined, query: Record<string, string | number | undefined>): Promise<T>;
  send<T>(
    method: 'POST' | 'PATCH' | 'DELETE',
    action: string | undefined,
    body?: unknown,
    query?: Record<string, string | number>,
  ): Promise<T>;
}

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
type Envelope<T> = { success?: boolean; data?: T; error?: string; code?: string };

const refusal = (status: number, answer: Envelope<unknown>) =>
  new ApiError(status, answer.error ?? `The service answered ${status}`, answer.code ?? 'unknown');

/**
 * An {@link Api} on `base`. An expired token is renewed before the next call; a 401 is renewed too,
 * unless a sign-in has just completed (then it is shown: see renewal.ts). Neither while a dialog is open.
 */
export function createApi(base: string, auth: ApiAuth): Api {
  const url = (action: string | undefined, query: Record<string, string | number | undefined>) => {
    const params = new URLSearchParams();
    if (action) params.set('action', action);
    for (const [name, value] of Object.entries(query)) if (value !== undefined && value !== '') params.set(name, String(value));
    const search = params.toString();
    return search ? `${base}?${search}` : base;
  };
  const facts = (): RenewalFacts => ({
    now: Date.now(),
    expiresAt: auth.expiresAt(),
    signedInAt: auth.signedInAt(),
    dialogOpen: auth.dialogOpen(),
  });
  const call = async <T>(method: string, target: string, body?: unknown): Promise<T> => {
    if (beforeCall(facts()) === 'renew') return auth.renew();
    const headers: Record<string, string> = { authorization: `Bearer ${auth.token()}` };
    if (body !== undefined) headers['content-type'] = 'application/json';
    const response = await fetch(target, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) });
    const answer = (await response.json().catch(() => ({}))) as Envelope<T>;
    if (response.status === 401) {
      const next = afterUnauthorized(facts());
      if (next === 'renew') return auth.renew();
      if (next === 'report') auth.refused(refusal(401, answer));
    }
    if (!response.ok || answer.success !== true) throw refusal(response.status, answer);
    return answer.data as T;
  };
  return {
    get: (action, query) => call('GET', url(action, query)),
    send: (method, action, body, query = {}) => call(method, url(action, query), body),
  };
}

/** An API key as the list, create and update operations show it (never the raw key but at creation). */
export interface ApiKey {
  id: number;
  org_id: number;
  name: string;
  description: string | null;
  key_prefix: string;
  allowed_game_ids: number[] | null;
  allowed_stream_ids: number[] | null;
  rate_limit_per_minute: number;
  rate_limit_per_day: number;
  expires_at: string | null;
  is_active: boolean;
  mcp_scopes: string[];
  created_at: string;
  updated_at: string;
  last_used_at: string | null;
  rotated_to: number | null;
  rotated_from: number | null;
}

/** A created or rotated key: the raw value, shown once. */
export interface CreatedKey extends ApiKey {
  key: string;
  previous?: ApiKey;
}

/** The usage report: the service's own schema (`shared/usage/report-schemas.ts`; type-only, nothing of it is bundled). */
export type UsageReport = z.output<typeof SessionReport>;
/** One counts object of the usage report (per day, per key per day, totals). */
export type UsageCounts = UsageReport['totals'];

/** One audit record, as the service's schema says (`shared/usage/audit-schemas.ts`). */
export type AuditRecord = z.output<typeof AuditLogPage>['records'][number];
/** What an update changed, field by field: before and after. */
export type AuditDiff = NonNullable<AuditRecord['diff']>;

/** A game or a stream of the org, with its "Require API Session Token" setting. */
export interface Target {
  game_id?: number;
  stream_id?: number;
  name: string;
  require_session_token: boolean;
  play_url?: string;
}

/** The list-games answer: both kinds. */
export interface Catalog {
  games: Target[];
  streams: Target[];
}

/** One organization of the signed-in subject (list-orgs), with its role there. */
export interface OrgMembership {
  org_id: number;
  name: string;
  tier: 'free' | 'pro' | 'business' | 'enterprise';
  role: 'owner' | 'admin' | 'editor' | 'analyst' | 'viewer';
}
