/**
 * The event sources' rules (shared/webhooks/stream-events.ts): each stream record of the tokens,
 * keys and counters tables, and the events and due items it makes, rule by rule, including the
 * records that make nothing.
 */
import { describe, expect, test } from '@jest/globals';
import { generateRawKey, newKeyRecord } from '../../shared/keys/api-keys.js';
import type { ApiKeyRecord } from '../../shared/keys/model.js';
import type { TokenRecord } from '../../shared/sessions/model.js';
import type { DueItem } from '../../shared/webhooks/delivery-model.js';
import {
  changeOutcome,
  keyDeletedEvent,
  KEY_EXPIRING_NOTICE_MS,
  needsSubscriber,
  stillExpiring,
  type StreamChange,
} from '../../shared/webhooks/stream-events.js';

const NOW = Date.UTC(2026, 10, 23, 10, 0, 0, 0);
const iso = (ms: number) => new Date(ms).toISOString();
const TOKEN = '3f2b8c1e-9a4d-4e7f-8b21-6c0d5e9f1a2b';
const DAY = 86_400_000;

function token(overrides: Partial<TokenRecord> = {}): TokenRecord & Record<string, unknown> {
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
    created_at: iso(NOW - 60_000),
    expires_at: iso(NOW + 3_600_000),
    // What the table keeps beside the record: never in an event.
    org_shard: '3#4',
    ttl: 1_900_000_000,
    ...overrides,
  };
}

function key(overrides: Partial<ApiKeyRecord> = {}): ApiKeyRecord & Record<string, unknown> {
  const record = newKeyRecord(generateRawKey(), 42, { org_id: 3, tier: 'business' }, { name: 'Checkout server' }, NOW - DAY);
  return { ...record, updated_by: 'admin-sub', ...overrides };
}

const change = (c: Omit<StreamChange, 'eventID' | 'atMs'> & Partial<StreamChange>): StreamChange => ({ eventID: 'ev-1', atMs: NOW, ...c });
const nothing = { events: [], deletions: [], due: [] };
const typesOf = (c: StreamChange) => changeOutcome(c).events.map((e) => e.event.type);

describe('tokens', () => {
  test('active -> consumed: session.consumed, sourced by the record, of the org', () => {
    const consumed = token({ status: 'consumed', session_id: 77, consumed_at: iso(NOW), player_uuid: null });
    const out = changeOutcome(change({ table: 'tokens', eventName: 'MODIFY', oldImage: token(), newImage: consumed }));
    expect(out.events).toEqual([
      { org_id: 3, source_id: 'ev-1', event: expect.objectContaining({ type: 'session.consumed', timestamp: iso(NOW) }) },
    ]);
    expect(out.events[0]!.event.data).not.toHaveProperty('org_shard');
    expect(out.due).toEqual([]);
  });

  test('active -> revoked: session.revoked', () => {
    const revoked = token({ status: 'revoked', revoked_at: iso(NOW) });
    expect(typesOf(change({ table: 'tokens', eventName: 'MODIFY', oldImage: token(), newImage: revoked }))).toEqual(['session.revoked']);
  });

  test('a change that leaves the status (a play-pass exchange counted), or of a token no longer active: nothing', () => {
    const counted = token({ exchange_attempts: 1 } as Partial<TokenRecord>);
    expect(changeOutcome(change({ table: 'tokens', eventName: 'MODIFY', oldImage: token(), newImage: counted }))).toEqual(nothing);
    const consumed = token({ status: 'consumed', session_id: 77, consumed_at: iso(NOW) });
    const twice = { ...consumed, exchange_attempts: 2 };
    expect(changeOutcome(change({ table: 'tokens', eventName: 'MODIFY', oldImage: consumed, newImage: twice }))).toEqual(nothing);
  });

  test('a refused consume writes nothing, so there is no record; the TTL removal of a token: nothing', () => {
    expect(changeOutcome(change({ table: 'tokens', eventName: 'REMOVE', oldImage: token() }))).toEqual(nothing);
  });

  test('a new token: due for session.expired at its expiry (kept only for an org that wants it)', () => {
    const out = changeOutcome(change({ table: 'tokens', eventName: 'INSERT', newImage: token() }));
    expect(out.events).toEqual([]);
    expect(out.due).toEqual([{ kind: 'session.expired', org_id: 3, ref: TOKEN, due_at: iso(NOW + 3_600_000) }]);
    expect(needsSubscriber(out.due[0]!)).toBe(true);
  });
});

describe('keys', () => {
  test('an admin’s new key: key.created with its actor, at its creation; never its hash', () => {
    const created = key();
    const out = changeOutcome(change({ table: 'keys', eventName: 'INSERT', newImage: created }));
    expect(out.events).toHaveLength(1);
    const { event } = out.events[0]!;
    expect(event).toMatchObject({ type: 'key.created', timestamp: created.created_at, data: { id: 42, org_id: 3, actor: 'admin-sub' } });
    expect(JSON.stringify(event)).not.toContain(created.key_hash);
    expect(event.data).not.toHaveProperty('updated_by');
  });

  test('a rotation’s new key (rotated_from): nothing; the retired key’s change (rotated_to appears): key.rotated', () => {
    expect(typesOf(change({ table: 'keys', eventName: 'INSERT', newImage: key({ id: 43, rotated_from: 42 }) }))).toEqual([]);
    const before = key({ rotated_to: null });
    const retired = key({ rotated_to: 43, expires_at: iso(NOW + 300_000), updated_at: iso(NOW), updated_by: 'rotator' });
    const out = changeOutcome(change({ table: 'keys', eventName: 'MODIFY', oldImage: before, newImage: retired }));
    expect(out.events.map((e) => [e.event.type, (e.event.data as { actor: string }).actor, e.event.timestamp])).toEqual([
      ['key.rotated', 'rotator', iso(NOW)],
    ]);
    // Its expiry is the grace period's, which key.rotated said: no key.expiring for it.
    expect(out.due).toEqual([]);
  });

  test('an admin’s change (updated_at moves: settings, revocation, reactivation): key.updated', () => {
    const before = key();
    for (const changed of [{ name: 'renamed' }, { is_active: false }, { rate_limit_per_minute: 5, limits_version: 1 }]) {
      const after = key({ ...changed, updated_at: iso(NOW), updated_by: 'mcp:9' });
      const out = changeOutcome(change({ table: 'keys', eventName: 'MODIFY', oldImage: before, newImage: after }));
      expect(out.events.map((e) => [e.event.type, (e.event.data as { actor: string }).actor])).toEqual([['key.updated', 'mcp:9']]);
    }
  });

  test('a use stamp (last_used_at) or a tier copy changing alone: nothing', () => {
    const before = key();
    const stamped = key({ ...before, last_used_at: iso(NOW) });
    expect(changeOutcome(change({ table: 'keys', eventName: 'MODIFY', oldImage: before, newImage: stamped }))).toEqual(nothing);
    const tier = key({ ...before, org_tier: 'enterprise', org_tier_version: 2 });
    expect(changeOutcome(change({ table: 'keys', eventName: 'MODIFY', oldImage: before, newImage: tier }))).toEqual(nothing);
  });

  test('id items (lookups and tombstones) are not keys: nothing', () => {
    const idItem = { key_hash: 'id#42', target_hash: 'ab', target_org: 3, key_prefix: 'dpk_1234' };
    expect(changeOutcome(change({ table: 'keys', eventName: 'INSERT', newImage: idItem }))).toEqual(nothing);
    const tombstone = { ...idItem, deleted_by: 'admin-sub', deleted_at: iso(NOW) };
    expect(changeOutcome(change({ table: 'keys', eventName: 'MODIFY', oldImage: idItem, newImage: tombstone }))).toEqual(nothing);
    expect(changeOutcome(change({ table: 'keys', eventName: 'REMOVE', oldImage: idItem }))).toEqual(nothing);
  });

  test('a key written by no admin (no updated_by: the seed): no key event', () => {
    const { updated_by: _by, ...seeded } = key();
    expect(typesOf(change({ table: 'keys', eventName: 'INSERT', newImage: seeded }))).toEqual([]);
  });

  test('a removed key waits for its actor; with its tombstone it is key.deleted, at the deletion, the key as it was', () => {
    const gone = key({ name: 'last name' });
    const out = changeOutcome(change({ table: 'keys', eventName: 'REMOVE', oldImage: gone }));
    expect(out.events).toEqual([]);
    expect(out.deletions).toEqual([{ source_id: 'ev-1', key: gone }]);
    const sourced = keyDeletedEvent(out.deletions[0]!, { deleted_by: 'deleter', deleted_at: iso(NOW + 5) });
    expect(sourced).toMatchObject({
      org_id: 3,
      source_id: 'ev-1',
      event: { type: 'key.deleted', timestamp: iso(NOW + 5), data: { name: 'last name', actor: 'deleter' } },
    });
  });

  test('a key with an expiry set or changed: due for key.expiring 7 days before it, or at the change when that is past', () => {
    const far = iso(NOW + 30 * DAY);
    const created = changeOutcome(change({ table: 'keys', eventName: 'INSERT', newImage: key({ expires_at: far }) }));
    expect(created.due).toEqual([{ kind: 'key.expiring', org_id: 3, ref: '42', due_at: iso(NOW + 23 * DAY) }]);
    expect(needsSubscriber(created.due[0]!)).toBe(false);
    const soon = key({ expires_at: iso(NOW + DAY), updated_at: iso(NOW) });
    const changed = changeOutcome(change({ table: 'keys', eventName: 'MODIFY', oldImage: key({ expires_at: far }), newImage: soon }));
    expect(changed.due).toEqual([{ kind: 'key.expiring', org_id: 3, ref: '42', due_at: iso(NOW) }]);
    // The expiry unchanged (a rename): no new item.
    const renamed = key({ expires_at: far, name: 'x', updated_at: iso(NOW) });
    expect(
      changeOutcome(change({ table: 'keys', eventName: 'MODIFY', oldImage: key({ expires_at: far }), newImage: renamed })).due,
    ).toEqual([]);
    // Cleared: none.
    const cleared = key({ expires_at: null, updated_at: iso(NOW) });
    expect(
      changeOutcome(change({ table: 'keys', eventName: 'MODIFY', oldImage: key({ expires_at: far }), newImage: cleared })).due,
    ).toEqual([]);
  });

  test('a key.expiring item still holds only while the key still expires when it was made for, and works', () => {
    const item: DueItem = { kind: 'key.expiring', org_id: 3, ref: '42', due_at: iso(NOW) };
    expect(stillExpiring(key({ expires_at: iso(NOW + KEY_EXPIRING_NOTICE_MS) }), item)).toBe(true);
    // Made at a change within the 7 days.
    expect(stillExpiring(key({ expires_at: iso(NOW + DAY) }), item)).toBe(true);
    expect(stillExpiring(key({ expires_at: iso(NOW + KEY_EXPIRING_NOTICE_MS + DAY) }), item)).toBe(false);
    expect(stillExpiring(key({ expires_at: iso(NOW - 1) }), item)).toBe(false);
    expect(stillExpiring(key({ expires_at: null }), item)).toBe(false);
    expect(stillExpiring(key({ expires_at: iso(NOW + DAY), is_active: false }), item)).toBe(false);
    expect(stillExpiring(key({ expires_at: iso(NOW + DAY), rotated_to: 43 }), item)).toBe(false);
    expect(stillExpiring(undefined, item)).toBe(false);
  });
});

describe('counters', () => {
  const notice = {
    pk: `notice#42#minute#${iso(NOW)}`,
    org_id: 3,
    key_id: 42,
    window: 'minute',
    limit: 60,
    resets_at: iso(NOW + 60_000),
    at: iso(NOW + 12_000),
    ttl: 1_900_000_000,
  };

  test('a notice put: key.rate_limited, the window and its limit, when it resets', () => {
    const out = changeOutcome(change({ table: 'counters', eventName: 'INSERT', newImage: notice }));
    expect(out.events).toEqual([
      {
        org_id: 3,
        source_id: 'ev-1',
        event: {
          type: 'key.rate_limited',
          timestamp: iso(NOW + 12_000),
          data: { key_id: 42, window: 'minute', limit: 60, resets_at: iso(NOW + 60_000) },
        },
      },
    ]);
    const day = { ...notice, pk: `notice#42#day#${iso(NOW - 36_000_000)}`, window: 'day', limit: 1000, resets_at: iso(NOW + 50_400_000) };
    expect(changeOutcome(change({ table: 'counters', eventName: 'INSERT', newImage: day })).events[0]!.event.data).toMatchObject({
      window: 'day',
    });
  });

  test('counting writes, a notice’s TTL removal: nothing', () => {
    const counter = { pk: `rate#42#${NOW}#0`, day: 3, m600: 1 };
    expect(changeOutcome(change({ table: 'counters', eventName: 'INSERT', newImage: counter }))).toEqual(nothing);
    expect(changeOutcome(change({ table: 'counters', eventName: 'MODIFY', newImage: { ...counter, day: 4 } }))).toEqual(nothing);
    expect(changeOutcome(change({ table: 'counters', eventName: 'REMOVE' }))).toEqual(nothing);
  });
});
