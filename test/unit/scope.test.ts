import { describe, expect, test } from '@jest/globals';
import { OutOfScope } from '../../shared/platform/errors.js';
import type { Playable } from '../../shared/catalog/model.js';
import { assertInScope, isAllowed, isRestricted, namedTarget, type Target } from '../../shared/sessions/scope.js';

const playable = (kind: Playable['kind'], id: number, org_id = 1): Playable => ({
  kind,
  id,
  org_id,
  org_slug: 'acme',
  name: `${kind} ${id}`,
  require_session_token: true,
  content_url: '/demo',
});
const key = (allowed_game_ids: number[] | null = null, allowed_stream_ids: number[] | null = null) => ({
  org_id: 1,
  allowed_game_ids,
  allowed_stream_ids,
});
const game = (id: number): Target => ({ kind: 'game', id });
const stream = (id: number): Target => ({ kind: 'stream', id });

describe('assertInScope', () => {
  test('null allow-lists: every game and stream of the org', () => {
    expect(() => assertInScope(key(), game(101), playable('game', 101))).not.toThrow();
    expect(() => assertInScope(key(), stream(201), playable('stream', 201))).not.toThrow();
  });

  test('another org’s game or stream is out of scope, whatever the lists say', () => {
    expect(() => assertInScope(key(), game(301), playable('game', 301, 2))).toThrow(OutOfScope);
    expect(() => assertInScope(key([301], [401]), stream(401), playable('stream', 401, 2))).toThrow(OutOfScope);
    expect(() => assertInScope(key([301]), game(301), playable('game', 301, 2))).toThrow(OutOfScope);
  });

  test('an unknown game or stream is out of scope', () => {
    expect(() => assertInScope(key(), game(999), undefined)).toThrow(new OutOfScope('This API key has no access to game 999'));
    expect(() => assertInScope(key(null, [999]), stream(999), undefined)).toThrow(OutOfScope);
  });

  test('a set game list limits games, and leaves streams to the stream list', () => {
    const k = key([101]);
    expect(() => assertInScope(k, game(101), playable('game', 101))).not.toThrow();
    expect(() => assertInScope(k, game(102), playable('game', 102))).toThrow(new OutOfScope('This API key has no access to game 102'));
    expect(() => assertInScope(k, stream(201), playable('stream', 201))).not.toThrow();
  });

  test('a set stream list limits streams, and leaves games to the game list', () => {
    const k = key(null, [202]);
    expect(() => assertInScope(k, stream(202), playable('stream', 202))).not.toThrow();
    expect(() => assertInScope(k, stream(201), playable('stream', 201))).toThrow(
      new OutOfScope('This API key has no access to stream 201'),
    );
    expect(() => assertInScope(k, game(101), playable('game', 101))).not.toThrow();
  });

  test('an empty list allows none of its kind', () => {
    expect(() => assertInScope(key([]), game(101), playable('game', 101))).toThrow(OutOfScope);
    expect(() => assertInScope(key([]), stream(201), playable('stream', 201))).not.toThrow();
    expect(() => assertInScope(key(null, []), stream(201), playable('stream', 201))).toThrow(OutOfScope);
    expect(() => assertInScope(key(null, []), game(101), playable('game', 101))).not.toThrow();
  });

  test('a game id in the stream list does not open the game of that id', () => {
    expect(() => assertInScope(key([], [101]), game(101), playable('game', 101))).toThrow(OutOfScope);
  });
});

// The same rule bounds revoke, the MCP catalog tools and reports (docs/decisions.md#scopes).
describe('isAllowed, isRestricted, namedTarget', () => {
  test('null or absent (a record older than allow-lists) allows all of its kind; a set list only its ids, [] none', () => {
    expect(isAllowed(key(), game(101))).toBe(true);
    expect(isAllowed({ allowed_game_ids: undefined, allowed_stream_ids: undefined } as never, stream(201))).toBe(true);
    expect(isAllowed(key([101], []), game(101))).toBe(true);
    expect(isAllowed(key([101], []), game(102))).toBe(false);
    expect(isAllowed(key([101], []), stream(201))).toBe(false);
    expect(isAllowed(key([101]), stream(201))).toBe(true);
  });

  test('a key is restricted when either list is set, even empty', () => {
    expect(isRestricted(key())).toBe(false);
    expect(isRestricted(key([]))).toBe(true);
    expect(isRestricted(key(null, [201]))).toBe(true);
  });

  test('a token’s or a row’s target is its game, else its stream, else none', () => {
    expect(namedTarget({ game_id: 101, stream_id: null })).toEqual(game(101));
    expect(namedTarget({ game_id: null, stream_id: 201 })).toEqual(stream(201));
    expect(namedTarget({ game_id: null, stream_id: null })).toBeUndefined();
  });
});
