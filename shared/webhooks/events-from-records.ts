/**
 * Each event built from the domain records it reports: a token (`TokenRecord`), a key
 * (`ApiKeyRecord`), a rate window. This is the one way to make a payload, and it is why no payload
 * can carry a raw key, a key hash or a secret: a key goes through `keyView` (the key as the list
 * shows it, which has neither), and every payload is parsed by its type's schema (`events.ts`),
 * which keeps the schema's fields and drops whatever else the record held. Partner-given values
 * (`external_ref`, `metadata`, a key's name and description) are carried as given: they go back to
 * the organization that gave them, as validate-session and list-keys show them.
 */
import { keyView, type ApiKeyRecord, type RateWindow } from '../keys/index.js';
import { isoTime } from '../platform/time.js';
import { statusAt, type TokenRecord } from '../sessions/index.js';
import { EVENT_SCHEMAS, type WebhookEvent, type WebhookEventData, type WebhookEventType } from './events.js';

/** The payload of `type`: only what its schema lists survives the parse. @throws on data its schema refuses (a bug upstream). */
function event<T extends WebhookEventType>(type: T, timestamp: string, data: WebhookEventData<T>): WebhookEvent<T> {
  return EVENT_SCHEMAS[type].parse({ type, timestamp, data }) as WebhookEvent<T>;
}

/** What every session event says of its token. */
function tokenFields(token: TokenRecord) {
  const { org_id, game_id, stream_id, external_ref, key_id } = token;
  return { token: token.token, org_id, game_id, stream_id, external_ref, key_id };
}

/** `session.consumed`, at the consumption. @throws for a token that is not consumed. */
export function sessionConsumed(token: TokenRecord): WebhookEvent<'session.consumed'> {
  const { status, session_id, consumed_at } = token;
  if (status !== 'consumed' || session_id === undefined || consumed_at === undefined) {
    throw new Error('session.consumed is for a consumed token');
  }
  const data = {
    ...tokenFields(token),
    session_id,
    metadata: token.metadata,
    player_uuid: token.player_uuid ?? null,
    player_ref: token.player_ref,
    consumed_at,
  };
  return event('session.consumed', consumed_at, data);
}

/** `session.revoked`, at the revocation. @throws for a token that is not revoked. */
export function sessionRevoked(token: TokenRecord): WebhookEvent<'session.revoked'> {
  const { status, revoked_at } = token;
  if (status !== 'revoked' || revoked_at === undefined) throw new Error('session.revoked is for a revoked token');
  return event('session.revoked', revoked_at, { ...tokenFields(token), revoked_at });
}

/**
 * `session.expired`, dated at the expiry. @throws unless the token reads as expired at `nowMs`:
 * still active and past its `expires_at`, so a consumed or revoked token is never announced as
 * expired, and none is announced early.
 */
export function sessionExpired(token: TokenRecord, nowMs: number): WebhookEvent<'session.expired'> {
  if (statusAt(token, nowMs) !== 'expired') throw new Error('session.expired is for a token neither consumed nor revoked, past its expiry');
  return event('session.expired', token.expires_at, { ...tokenFields(token), expires_at: token.expires_at });
}

/** The key events an admin (or a key through MCP) causes. */
export type KeyChangeType = 'key.created' | 'key.updated' | 'key.rotated' | 'key.deleted';

/** The actor of a change made through the MCP server by the key `keyId`. */
export function mcpActor(keyId: number): string {
  return `mcp:${keyId}`;
}

/** A key change: the key as the list shows it after the change (before it, for a deletion), and who made it. */
export function keyChanged(type: KeyChangeType, key: ApiKeyRecord, actor: string, atMs: number): WebhookEvent<KeyChangeType> {
  return event(type, isoTime(atMs), { ...keyView(key), actor });
}

/** `key.expiring`: the key, 7 days before its `expires_at`. */
export function keyExpiring(key: ApiKeyRecord, atMs: number): WebhookEvent<'key.expiring'> {
  return event('key.expiring', isoTime(atMs), keyView(key));
}

/** `key.rate_limited`: the key reached the limit of `window`, which ends at `resets_at`. */
export function keyRateLimited(keyId: number, window: RateWindow, atMs: number): WebhookEvent<'key.rate_limited'> {
  const data = { key_id: keyId, window: window.name, limit: window.limit, resets_at: isoTime(window.endMs) };
  return event('key.rate_limited', isoTime(atMs), data);
}

/** `webhook.test`, sent by test-webhook to the endpoint it names. */
export function webhookTest(webhookId: number, atMs: number): WebhookEvent<'webhook.test'> {
  return event('webhook.test', isoTime(atMs), { webhook_id: webhookId });
}
