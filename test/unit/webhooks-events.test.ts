/**
 * Webhook events: each type's `data` field for field as the contract lists it, the envelope, the
 * events built from domain records, subscriptions, and the guarantee that no payload carries a raw
 * key, a key hash or a secret, however much of them the records hold (fuzzed).
 */
import { describe, expect, test } from '@jest/globals';
import fc from 'fast-check';
import { createHash } from 'node:crypto';
import * as z from 'zod/mini';
import { generateRawKey, newKeyRecord } from '../../shared/keys/api-keys.js';
import type { Tier } from '../../shared/catalog/model.js';
import type { ApiKeyRecord } from '../../shared/keys/model.js';
import { rateWindows } from '../../shared/keys/rate-limit.js';
import { ApiKeyView } from '../../shared/keys/schemas.js';
import type { TokenRecord } from '../../shared/sessions/model.js';
import { EVENT_SCHEMAS, SubscribedEvents, WEBHOOK_EVENT_TYPES, subscribes, type WebhookEvent } from '../../shared/webhooks/events.js';
import {
  keyChanged,
  keyExpiring,
  keyRateLimited,
  mcpActor,
  sessionConsumed,
  sessionExpired,
  sessionRevoked,
  webhookTest,
  type KeyChangeType,
} from '../../shared/webhooks/events-from-records.js';

const NOW = Date.UTC(2026, 10, 23, 10, 0, 0, 0);
const iso = (ms: number) => new Date(ms).toISOString();
const TOKEN = '3f2b8c1e-9a4d-4e7f-8b21-6c0d5e9f1a2b';

/** The key as the list shows it (the contract's list), then what the view has added since (rotation links). */
const KEY_VIEW_FIELDS = [
  'id',
  'org_id',
  'name',
  'description',
  'key_prefix',
  'allowed_game_ids',
  'allowed_stream_ids',
  'rate_limit_per_minute',
  'rate_limit_per_day',
  'expires_at',
  'is_active',
  'mcp_scopes',
  'created_at',
  'updated_at',
  'last_used_at',
];

/** Each type's `data`, as the contract lists it. */
const CONTRACT: Record<string, string[]> = {
  'session.consumed': [
    'token',
    'session_id',
    'org_id',
    'game_id',
    'stream_id',
    'external_ref',
    'metadata',
    'player_uuid',
    'player_ref',
    'key_id',
    'consumed_at',
  ],
  'session.revoked': ['token', 'org_id', 'game_id', 'stream_id', 'external_ref', 'key_id', 'revoked_at'],
  'session.expired': ['token', 'org_id', 'game_id', 'stream_id', 'external_ref', 'key_id', 'expires_at'],
  'key.created': [...KEY_VIEW_FIELDS, 'actor'],
  'key.updated': [...KEY_VIEW_FIELDS, 'actor'],
  'key.rotated': [...KEY_VIEW_FIELDS, 'actor'],
  'key.deleted': [...KEY_VIEW_FIELDS, 'actor'],
  'key.expiring': KEY_VIEW_FIELDS,
  'key.rate_limited': ['key_id', 'window', 'limit', 'resets_at'],
  'webhook.test': ['webhook_id'],
};

const dataFields = (type: keyof typeof EVENT_SCHEMAS) => Object.keys(EVENT_SCHEMAS[type].shape.data.shape);

function token(overrides: Partial<TokenRecord> = {}): TokenRecord {
  return {
    token: TOKEN,
    org_id: 3,
    key_id: 42,
    game_id: 301,
    stream_id: null,
    external_ref: 'order-7',
    metadata: { level: 2 },
    player_ref: null,
    status: 'active',
    created_at: iso(NOW - 3_600_000),
    expires_at: iso(NOW + 3_600_000),
    ...overrides,
  };
}

function key(overrides: Partial<ApiKeyRecord> = {}, rawKey = generateRawKey()): ApiKeyRecord {
  const record = newKeyRecord(rawKey, 42, { org_id: 3, tier: 'business' }, { name: 'Checkout server' }, NOW - 86_400_000);
  return { ...record, ...overrides };
}

describe('event types and their data', () => {
  test('the ten types of the contract, each with its data field for field, in order', () => {
    expect(WEBHOOK_EVENT_TYPES).toEqual(Object.keys(CONTRACT));
    for (const type of WEBHOOK_EVENT_TYPES) {
      const view = type.startsWith('key.') && type !== 'key.rate_limited';
      const fields = dataFields(type);
      // The key events carry the view as it stands, so a field the view gains reaches them too.
      const expected = view ? [...Object.keys(ApiKeyView.shape), ...(type === 'key.expiring' ? [] : ['actor'])] : CONTRACT[type];
      expect([type, fields]).toEqual([type, expected]);
      expect(fields).toEqual(expect.arrayContaining(CONTRACT[type]!));
    }
  });

  test('the envelope is {type, timestamp, data}, and each type’s schema takes only its own type', () => {
    const event = webhookTest(7, NOW);
    expect(event).toEqual({ type: 'webhook.test', timestamp: '2026-11-23T10:00:00.000Z', data: { webhook_id: 7 } });
    expect(Object.keys(event)).toEqual(['type', 'timestamp', 'data']);
    expect(EVENT_SCHEMAS['key.created'].safeParse(event).success).toBe(false);
  });
});

describe('events from domain records', () => {
  test('session.consumed: the token as consumed, dated at the consumption', () => {
    const consumed = token({ status: 'consumed', session_id: 9_007_199_254_740_991, player_uuid: 'p-1', consumed_at: iso(NOW) });
    expect(sessionConsumed(consumed)).toEqual({
      type: 'session.consumed',
      timestamp: iso(NOW),
      data: {
        token: TOKEN,
        session_id: 9_007_199_254_740_991,
        org_id: 3,
        game_id: 301,
        stream_id: null,
        external_ref: 'order-7',
        metadata: { level: 2 },
        player_uuid: 'p-1',
        player_ref: null,
        key_id: 42,
        consumed_at: iso(NOW),
      },
    });
    // No player given at consume: null, as the contract's field is always present.
    expect(sessionConsumed({ ...consumed, player_uuid: undefined }).data.player_uuid).toBeNull();
    // A bound token, consumed by its player: both name it.
    const bound = sessionConsumed({ ...consumed, player_ref: 'p-1' }).data;
    expect([bound.player_uuid, bound.player_ref]).toEqual(['p-1', 'p-1']);
  });

  test('session.revoked and session.expired: the token, dated when it happened', () => {
    const revoked = sessionRevoked(token({ status: 'revoked', revoked_at: iso(NOW), stream_id: 5, game_id: null }));
    expect(revoked).toEqual({
      type: 'session.revoked',
      timestamp: iso(NOW),
      data: { token: TOKEN, org_id: 3, game_id: null, stream_id: 5, external_ref: 'order-7', key_id: 42, revoked_at: iso(NOW) },
    });
    const expiresAt = iso(NOW - 60_000);
    expect(sessionExpired(token({ expires_at: expiresAt }), NOW)).toEqual({
      type: 'session.expired',
      timestamp: expiresAt,
      data: { token: TOKEN, org_id: 3, game_id: 301, stream_id: null, external_ref: 'order-7', key_id: 42, expires_at: expiresAt },
    });
  });

  test('no event a token’s state does not bear out: never session.expired for a consumed, revoked or unexpired token', () => {
    const past = iso(NOW - 1);
    expect(() => sessionExpired(token({ status: 'consumed', expires_at: past, session_id: 1, consumed_at: past }), NOW)).toThrow();
    expect(() => sessionExpired(token({ status: 'revoked', expires_at: past, revoked_at: past }), NOW)).toThrow();
    expect(() => sessionExpired(token({ expires_at: iso(NOW + 1) }), NOW)).toThrow();
    expect(sessionExpired(token({ expires_at: iso(NOW) }), NOW).type).toBe('session.expired');
    expect(() => sessionConsumed(token())).toThrow('consumed token');
    expect(() => sessionRevoked(token())).toThrow('revoked token');
    expect(() => sessionConsumed(token({ status: 'consumed' }))).toThrow('consumed token');
  });

  test('key events: the key as the list shows it, with the actor; key.expiring without one', () => {
    const record = key({ expires_at: iso(NOW + 7 * 86_400_000) });
    for (const type of ['key.created', 'key.updated', 'key.rotated', 'key.deleted'] as const) {
      const event = keyChanged(type, record, 'admin-sub-1', NOW);
      expect(event.type).toBe(type);
      expect(event.timestamp).toBe(iso(NOW));
      expect(event.data).toMatchObject({ id: 42, org_id: 3, name: 'Checkout server', key_prefix: record.key_prefix, actor: 'admin-sub-1' });
    }
    expect(keyChanged('key.updated', record, mcpActor(17), NOW).data.actor).toBe('mcp:17');
    const expiring = keyExpiring(record, NOW);
    expect(expiring.data).toMatchObject({ id: 42, expires_at: record.expires_at });
    expect(expiring.data).not.toHaveProperty('actor');
  });

  test('key.rate_limited: the window the key reached, its limit and when it resets', () => {
    const [minute, day] = rateWindows({ id: 42, rate_limit_per_minute: 60, rate_limit_per_day: 10_000 }, NOW + 30_500);
    expect(keyRateLimited(42, minute, NOW + 30_500)).toEqual({
      type: 'key.rate_limited',
      timestamp: iso(NOW + 30_500),
      data: { key_id: 42, window: 'minute', limit: 60, resets_at: iso(NOW + 60_000) },
    });
    expect(keyRateLimited(42, day, NOW).data).toEqual({ key_id: 42, window: 'day', limit: 10_000, resets_at: iso(NOW + 14 * 3_600_000) });
  });
});

describe('subscriptions', () => {
  test('["*"] or a list of distinct types; nothing else', () => {
    for (const ok of [['*'], ['session.consumed'], ['key.rate_limited', 'session.expired'], [...WEBHOOK_EVENT_TYPES]]) {
      expect(SubscribedEvents.safeParse(ok).success).toBe(true);
    }
    const refused = [[], ['*', 'key.created'], ['key.created', 'key.created'], ['session.started'], ['*', '*'], 'session.consumed', null];
    for (const bad of refused) expect(SubscribedEvents.safeParse(bad).success).toBe(false);
  });

  test('an endpoint receives the types it lists; ["*"] receives every type', () => {
    for (const type of WEBHOOK_EVENT_TYPES) expect(subscribes(['*'], type)).toBe(true);
    expect(subscribes(['session.consumed', 'key.deleted'], 'session.consumed')).toBe(true);
    expect(subscribes(['session.consumed', 'key.deleted'], 'key.deleted')).toBe(true);
    expect(subscribes(['session.consumed', 'key.deleted'], 'session.revoked')).toBe(false);
  });
});

describe('no raw key, key hash or secret in any payload', () => {
  /** Names a field carrying one would have. */
  const SECRET_NAME = /key_hash|hash|secret|^key$|raw_key|password|token_hash/;

  /** Every field name of a schema, nested ones included; a record's keys are the partner's own (metadata). */
  function fieldNames(schema: z.ZodMiniType): string[] {
    const def = schema._zod.def as unknown as Record<string, z.ZodMiniType> & { type: string; shape: Record<string, z.ZodMiniType> };
    switch (def.type) {
      case 'object':
        return Object.entries(def.shape).flatMap(([name, field]) => [name, ...fieldNames(field)]);
      case 'nullable':
      case 'optional':
        return fieldNames(def.innerType!);
      case 'array':
        return fieldNames(def.element!);
      case 'pipe':
        return [...fieldNames(def.in!), ...fieldNames(def.out!)];
      default:
        return [];
    }
  }

  test('no schema has a field named for a key, a hash or a secret', () => {
    for (const type of WEBHOOK_EVENT_TYPES) {
      const names = fieldNames(EVENT_SCHEMAS[type]);
      expect(names).toContain('data');
      expect([type, names.filter((name) => SECRET_NAME.test(name))]).toEqual([type, []]);
    }
  });

  /** Text a partner might give that is not itself a secret (the fuzz plants those separately). */
  const text = fc.string({ maxLength: 40 }).filter((s) => !/dpk_|whsec_/.test(s));
  const secrets = fc.record({
    rawKey: fc.uint8Array({ minLength: 20, maxLength: 20 }).map((bytes) => `dpk_${Buffer.from(bytes).toString('hex')}`),
    secret: fc.uint8Array({ minLength: 32, maxLength: 32 }).map((bytes) => `whsec_${Buffer.from(bytes).toString('base64')}`),
  });
  /** Extra properties a record might hold by mistake, each holding one of the secrets. */
  const smuggled = (s: { rawKey: string; secret: string }) =>
    fc.dictionary(
      fc.constantFrom('key', 'raw_key', 'key_hash', 'secret', 'webhook_secret', 'previous_secret', 'extra'),
      fc.constantFrom(s.rawKey, s.secret, sha256(s.rawKey)),
    );
  const sha256 = (value: string) => createHash('sha256').update(value).digest('hex');

  /** Asserts the payload is exactly its schema's and holds none of the secrets. */
  function clean(event: WebhookEvent, s: { rawKey: string; secret: string }) {
    const parsed = EVENT_SCHEMAS[event.type].parse(event);
    expect(event).toEqual(parsed);
    expect(Object.keys(event.data)).toEqual(dataFields(event.type));
    const json = JSON.stringify(event);
    for (const planted of [s.rawKey, sha256(s.rawKey), s.secret, s.secret.slice('whsec_'.length)]) {
      expect(json).not.toContain(planted);
    }
    expect(json).not.toMatch(/dpk_[0-9a-f]{40}|whsec_|[0-9a-f]{64}/i);
  }

  test('session events from tokens holding secrets beside their fields (fuzzed)', () => {
    const tokens = fc.record({
      external_ref: fc.option(text, { nil: null }),
      metadata: fc.option(fc.dictionary(text, fc.oneof(text, fc.integer(), fc.boolean(), fc.constant(null)), { maxKeys: 5 }), {
        nil: null,
      }),
      player_uuid: fc.option(text, { nil: null }),
      game: fc.boolean(),
    });
    fc.assert(
      fc.property(
        tokens,
        secrets.chain((s) => fc.tuple(fc.constant(s), smuggled(s))),
        (fields, [s, extra]) => {
          const { game, ...partner } = fields;
          const base = { ...token(partner), game_id: game ? 301 : null, stream_id: game ? null : 5, ...extra } as TokenRecord;
          const at = iso(NOW - 1000);
          clean(sessionConsumed({ ...base, status: 'consumed', session_id: 77, consumed_at: at }), s);
          clean(sessionRevoked({ ...base, status: 'revoked', revoked_at: at }), s);
          clean(sessionExpired({ ...base, status: 'active', expires_at: at }, NOW), s);
        },
      ),
      { numRuns: 200 },
    );
  });

  test('key events from key records holding their hash and secrets beside their fields (fuzzed)', () => {
    const settings = fc.record({
      name: text.filter((s) => s.trim() !== ''),
      description: fc.option(text, { nil: null }),
      allowed_game_ids: fc.option(fc.array(fc.integer({ min: 1, max: 10_000 }), { maxLength: 5 }), { nil: null }),
      expires_at: fc.option(fc.constant(iso(NOW + 7 * 86_400_000)), { nil: null }),
      is_active: fc.boolean(),
      org_tier: fc.constantFrom<Tier>('free', 'pro', 'business', 'enterprise'),
      limits_version: fc.nat(),
    });
    fc.assert(
      fc.property(
        settings,
        secrets.chain((s) => fc.tuple(fc.constant(s), smuggled(s))),
        fc.constantFrom<KeyChangeType>('key.created', 'key.updated', 'key.rotated', 'key.deleted'),
        (chosen, [s, extra], type) => {
          // What the record holds by mistake first: its own fields (its real hash) win over it.
          const record = { ...extra, ...key(chosen, s.rawKey) } as ApiKeyRecord;
          // The record holds the real hash of the raw key, as the store does.
          expect(record.key_hash).toBe(sha256(s.rawKey));
          clean(keyChanged(type, record, 'admin-sub', NOW), s);
          clean(keyExpiring(record, NOW), s);
        },
      ),
      { numRuns: 200 },
    );
  });
});
