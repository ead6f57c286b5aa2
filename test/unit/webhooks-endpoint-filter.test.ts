/**
 * The endpoint filter rule (docs/decisions.md#endpoint-filters): which session events pass a
 * filter of each shape, against a game's token (stream_id null) and a stream's (game_id null); a
 * key-bound endpoint's key events; a key's filter as the intersection with its allow-lists. The
 * rule is checked against a plain reference over random filters and tokens too.
 */
import { describe, expect, test } from '@jest/globals';
import fc from 'fast-check';
import {
  admitsAnySession,
  admitsEvent,
  admitsSession,
  boundFilter,
  normalizedFilter,
  type SessionTarget,
} from '../../shared/webhooks/endpoint-filter.js';
import type { EndpointFilter } from '../../shared/webhooks/schemas.js';
import type { WebhookEvent } from '../../shared/webhooks/events.js';

const game = (id: number): SessionTarget => ({ game_id: id, stream_id: null });
const stream = (id: number): SessionTarget => ({ game_id: null, stream_id: id });
const TARGETS = [game(101), game(102), stream(201), stream(202)];
const names = (target: SessionTarget) => (target.game_id !== null ? `game ${target.game_id}` : `stream ${target.stream_id}`);
const passing = (filter: EndpointFilter | null) => TARGETS.filter((t) => admitsSession(filter, t)).map(names);

describe('admitsSession', () => {
  test.each([
    ['no filter', null, ['game 101', 'game 102', 'stream 201', 'stream 202']],
    ['game 101, streams null: game 101 and every stream', { game_ids: [101], stream_ids: null }, ['game 101', 'stream 201', 'stream 202']],
    ['game 101, no stream: game 101 only', { game_ids: [101], stream_ids: [] }, ['game 101']],
    ['stream 201, games null: every game and stream 201', { game_ids: null, stream_ids: [201] }, ['game 101', 'game 102', 'stream 201']],
    ['both lists', { game_ids: [102], stream_ids: [201] }, ['game 102', 'stream 201']],
    ['both empty: nothing', { game_ids: [], stream_ids: [] }, []],
    ['games empty, streams null: every stream', { game_ids: [], stream_ids: null }, ['stream 201', 'stream 202']],
  ] as const)('%s', (_name, filter, expected) => {
    expect(passing(filter as EndpointFilter | null)).toEqual(expected);
  });

  test('a token of neither kind passes only where no list is set', () => {
    const neither = { game_id: null, stream_id: null };
    expect(admitsSession(null, neither)).toBe(true);
    expect(admitsSession({ game_ids: [101], stream_ids: null }, neither)).toBe(false);
  });

  test('admitsAnySession: false only when both lists are empty', () => {
    expect(admitsAnySession(null)).toBe(true);
    expect(admitsAnySession({ game_ids: [], stream_ids: null })).toBe(true);
    expect(admitsAnySession({ game_ids: [], stream_ids: [5] })).toBe(true);
    expect(admitsAnySession({ game_ids: [], stream_ids: [] })).toBe(false);
  });

  const ids = fc.uniqueArray(fc.integer({ min: 1, max: 8 }), { maxLength: 8 });
  const list = fc.option(ids, { nil: null });
  const filterArb = fc.option(fc.record({ game_ids: list, stream_ids: list }), { nil: null });
  const targetArb = fc.oneof(fc.integer({ min: 1, max: 8 }).map(game), fc.integer({ min: 1, max: 8 }).map(stream));

  test('property: the rule agrees with a plain reference', () => {
    // The reference, spelled out: a game's token is judged by game_ids, a stream's by stream_ids; null lets all through.
    const reference = (filter: EndpointFilter | null, t: SessionTarget) =>
      filter === null ||
      (t.game_id !== null
        ? filter.game_ids === null || filter.game_ids.includes(t.game_id)
        : filter.stream_ids === null || filter.stream_ids.includes(t.stream_id!));
    fc.assert(fc.property(filterArb, targetArb, (filter, target) => admitsSession(filter, target) === reference(filter, target)));
  });

  test('property: a bound filter never lets through what the key may not see, and keeps what both allow', () => {
    fc.assert(
      fc.property(list, list, filterArb, targetArb, (allowedGames, allowedStreams, given, target) => {
        const key = { allowed_game_ids: allowedGames, allowed_stream_ids: allowedStreams };
        const keyFilter = normalizedFilter({ game_ids: allowedGames, stream_ids: allowedStreams });
        const bound = boundFilter(key, given);
        expect(admitsSession(bound, target)).toBe(admitsSession(keyFilter, target) && admitsSession(given, target));
      }),
    );
  });
});

describe('normalizedFilter and boundFilter', () => {
  test('absent lists read as null; a filter of two null lists is no filter', () => {
    expect(normalizedFilter(undefined)).toBeNull();
    expect(normalizedFilter(null)).toBeNull();
    expect(normalizedFilter({})).toBeNull();
    expect(normalizedFilter({ game_ids: null, stream_ids: null })).toBeNull();
    expect(normalizedFilter({ game_ids: [101] })).toEqual({ game_ids: [101], stream_ids: null });
    expect(normalizedFilter({ stream_ids: [] })).toEqual({ game_ids: null, stream_ids: [] });
  });

  test('a key’s filter: its allow-lists, narrowed by what is given', () => {
    const key = { allowed_game_ids: [101], allowed_stream_ids: [] };
    expect(boundFilter(key, null)).toEqual({ game_ids: [101], stream_ids: [] });
    expect(boundFilter(key, { game_ids: [101, 102], stream_ids: [201] })).toEqual({ game_ids: [101], stream_ids: [] });
    expect(boundFilter(key, { game_ids: [102] })).toEqual({ game_ids: [], stream_ids: [] });
    const everything = { allowed_game_ids: null, allowed_stream_ids: null };
    expect(boundFilter(everything, undefined)).toBeNull();
    expect(boundFilter(everything, { stream_ids: [201] })).toEqual({ game_ids: null, stream_ids: [201] });
    expect(boundFilter({ allowed_game_ids: null, allowed_stream_ids: [201, 202] }, { stream_ids: [202, 203] })).toEqual({
      game_ids: null,
      stream_ids: [202],
    });
  });
});

describe('admitsEvent', () => {
  const at = '2026-11-28T10:00:00.000Z';
  const keyView = (id: number) => ({ id, org_id: 1, name: `k${id}` }) as Record<string, unknown>;
  const keyEvent = (type: 'key.created' | 'key.updated' | 'key.rotated' | 'key.deleted', id: number) =>
    ({ type, timestamp: at, data: { ...keyView(id), actor: 'a' } }) as WebhookEvent;
  const consumed = (target: SessionTarget) =>
    ({ type: 'session.consumed', timestamp: at, data: { token: 't', org_id: 1, ...target } }) as unknown as WebhookEvent;
  const events: [string, WebhookEvent][] = [
    ['key.created 7', keyEvent('key.created', 7)],
    ['key.updated 8', keyEvent('key.updated', 8)],
    ['key.rotated 7', keyEvent('key.rotated', 7)],
    ['key.deleted 8', keyEvent('key.deleted', 8)],
    ['key.expiring 8', { type: 'key.expiring', timestamp: at, data: keyView(8) } as WebhookEvent],
    ['key.rate_limited 7', { type: 'key.rate_limited', timestamp: at, data: { key_id: 7, window: 'minute', limit: 1, resets_at: at } }],
    ['key.rate_limited 8', { type: 'key.rate_limited', timestamp: at, data: { key_id: 8, window: 'day', limit: 1, resets_at: at } }],
    ['webhook.test', { type: 'webhook.test', timestamp: at, data: { webhook_id: 3 } }],
    ['consumed game 101', consumed(game(101))],
    ['consumed game 102', consumed(game(102))],
    ['revoked stream 201', { ...consumed(stream(201)), type: 'session.revoked' } as WebhookEvent],
    ['expired game 102', { ...consumed(game(102)), type: 'session.expired' } as WebhookEvent],
  ];
  const received = (endpoint: Parameters<typeof admitsEvent>[0]) => events.filter(([, e]) => admitsEvent(endpoint, e)).map(([n]) => n);

  test('an admin’s endpoint: every key event; session events by its filter', () => {
    expect(received({ filter: { game_ids: [101], stream_ids: null }, key_id: null })).toEqual([
      'key.created 7',
      'key.updated 8',
      'key.rotated 7',
      'key.deleted 8',
      'key.expiring 8',
      'key.rate_limited 7',
      'key.rate_limited 8',
      'webhook.test',
      'consumed game 101',
      'revoked stream 201',
    ]);
  });

  test('an endpoint stored before filters (no filter, no key): everything', () => {
    expect(received({})).toEqual(events.map(([n]) => n));
  });

  test('an endpoint bound to key 7: key events of key 7 only', () => {
    expect(received({ filter: { game_ids: [102], stream_ids: [] }, key_id: 7 })).toEqual([
      'key.created 7',
      'key.rotated 7',
      'key.rate_limited 7',
      'webhook.test',
      'consumed game 102',
      'expired game 102',
    ]);
  });
});
