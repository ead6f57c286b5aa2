/**
 * Helpers for the play-page tests: a partner key with room for many tokens (the demo key's
 * 60/min would run out), minting, consuming and revoking through the public API, and the one
 * request the page's script sends to start its play session (`POST /play/session`).
 */
import { generateRawKey, newKeyRecord } from '../../shared/keys/api-keys.js';
import type { Stack } from './local-stack.js';

/** What a token is minted for. */
export type Target = { game_id: number } | { stream_id: number };

/** A partner's server, as the play pages see it: it mints and revokes tokens. */
export interface Partner {
  mint(target: Target, extra?: Record<string, unknown>): Promise<string>;
  revoke(token: string): Promise<void>;
}

let nextKeyId = 7000;

/** A key of `org` with high limits, created through the key store. */
export async function partner(
  stack: Stack,
  org: { org_id: number; tier: 'business' | 'enterprise' } = { org_id: 1, tier: 'business' },
): Promise<Partner> {
  const raw = generateRawKey();
  const limits = { rate_limit_per_minute: 100_000, rate_limit_per_day: 1_000_000 };
  await stack.services.stores.keys.create(newKeyRecord(raw, nextKeyId++, org, { name: 'play-page tests', ...limits }, stack.clock.now()));
  return {
    mint: async (target, extra = {}) => {
      const res = await stack.post('create-session', { ...target, ...extra }, { 'x-api-key': raw });
      if (res.status !== 200) throw new Error(`create-session answered ${res.status}: ${JSON.stringify(res.body)}`);
      return res.body.data.token as string;
    },
    revoke: async (token) => {
      const res = await stack.post('revoke-session', { token }, { 'x-api-key': raw });
      if (res.status !== 200) throw new Error(`revoke-session answered ${res.status}`);
    },
  };
}

/** Consume a token through the partner API (as a partner's server does); returns the session id. */
export async function consume(stack: Stack, token: string): Promise<number> {
  const res = await stack.post('consume-session', { token });
  if (res.status !== 200) throw new Error(`consume-session answered ${res.status}`);
  return res.body.data.session_id as number;
}

/** The token's status as validate-session reports it. */
export async function statusOf(stack: Stack, token: string): Promise<string> {
  return (await stack.request(`/api/org-api-keys?action=validate-session&token=${token}`)).body.data.status as string;
}

/** What `POST /play/session` answered. */
export interface PlayStart {
  readonly status: number;
  /** The whole `Set-Cookie` header (the only one it sets), if any. */
  readonly setCookie: string | undefined;
  /** Its `name=value` part, to send back as a `cookie` header. */
  readonly cookie: string | undefined;
  readonly contentType: string | null;
  /** The body as JSON when it is JSON (the success envelope), else undefined (a refusal's page). */
  readonly json: { success: boolean; data: Record<string, unknown> } | undefined;
}

/** POST /play/session as the page's script does: consume the token and get the play cookie, in one request. */
export async function startPlay(stack: Stack, body: unknown): Promise<PlayStart> {
  const res = await fetch(`${stack.baseUrl}/play/session`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  const text = await res.text();
  const contentType = res.headers.get('content-type');
  const setCookie = res.headers.getSetCookie()[0];
  const json = contentType?.startsWith('application/json') ? (JSON.parse(text) as PlayStart['json']) : undefined;
  return { status: res.status, setCookie, cookie: setCookie?.split(';')[0], contentType, json };
}

/** The nonce of a response's CSP `script-src`. */
export function scriptNonce(csp: string | null): string | undefined {
  return /script-src 'nonce-([^']+)'/.exec(csp ?? '')?.[1];
}
