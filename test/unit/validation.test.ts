/** Validation failures as the 400 messages clients read: the field, then what is wrong with it. */
import { describe, expect, test } from '@jest/globals';
import { InvalidInput } from '../../shared/platform/errors.js';
import { parseWith } from '../../shared/platform/http/pipeline.js';
import { ConsumeSessionBody, CreateSessionBody } from '../../shared/sessions/schemas.js';

const TOKEN = '3f2b8c1e-9a4d-4e7f-8b21-6c0d5e9f1a2b';

function refusal(schema: Parameters<typeof parseWith>[0], input: unknown): string {
  try {
    parseWith(schema, input, 'body');
  } catch (error) {
    expect(error).toBeInstanceOf(InvalidInput);
    return (error as Error).message;
  }
  throw new Error('parsed');
}

describe('parseWith', () => {
  test('a missing field is required', () => {
    expect(refusal(ConsumeSessionBody, {})).toBe('token: is required');
  });

  test('a field of the wrong type says so, instead of calling it missing', () => {
    expect(refusal(ConsumeSessionBody, { token: TOKEN, player_uuid: 5 })).toBe('player_uuid: must be a string');
    expect(refusal(ConsumeSessionBody, { token: 42 })).toBe('token: must be a string');
    expect(refusal(CreateSessionBody, { game_id: 'one' })).toBe('game_id: must be a number');
  });

  test('a rule names its limit; a body that is not an object is refused as such', () => {
    expect(refusal(ConsumeSessionBody, { token: TOKEN, player_uuid: 'p'.repeat(256) })).toBe('player_uuid: must be at most 255 characters');
    expect(refusal(ConsumeSessionBody, [])).toBe('Request body must be a JSON object');
  });

  test('messages are plain words, never the validator’s vocabulary; each names its field as param', () => {
    const cases: [Parameters<typeof parseWith>[0], unknown, string, string | undefined][] = [
      [CreateSessionBody, { game_id: 1.5 }, 'game_id: must be an integer', 'game_id'],
      [CreateSessionBody, { game_id: 1, metadata: [] }, 'metadata: must be a JSON object', 'metadata'],
      [CreateSessionBody, { game_id: 1, expires_in_minutes: 0 }, 'expires_in_minutes: must be at least 1', 'expires_in_minutes'],
      [CreateSessionBody, { gameId: 1 }, 'unknown field gameId', 'gameId'],
      // A value sent as a key (a token, a raw key) is never repeated: it would reach the request's log line.
      [CreateSessionBody, { game_id: 1, [TOKEN]: 1 }, 'unknown field: one whose name is not an identifier', undefined],
      [
        CreateSessionBody,
        { game_id: 1, colour: 1, [`dpk_${'a'.repeat(40)}`]: 1 },
        'unknown fields colour, and one whose name is not an identifier',
        'colour',
      ],
      [CreateSessionBody, {}, 'game_id: exactly one of game_id or stream_id is required', 'game_id'],
      [CreateSessionBody, { game_id: 101, stream_id: 201 }, 'stream_id: exactly one of game_id or stream_id is required', 'stream_id'],
      [ConsumeSessionBody, { token: 'nope' }, 'token: must be a UUID', 'token'],
    ];
    for (const [schema, input, message, param] of cases) {
      try {
        parseWith(schema, input, 'body');
        throw new Error('parsed');
      } catch (error) {
        expect([message, (error as InvalidInput).param]).toEqual([(error as Error).message, param]);
        expect((error as Error).message).not.toMatch(/expected|received|Invalid input|Too (big|small)/);
      }
    }
  });

  test('valid input comes back parsed (token lower-cased, absent optional fields null)', () => {
    expect(parseWith(ConsumeSessionBody, { token: TOKEN.toUpperCase() }, 'body')).toEqual({ token: TOKEN, player_uuid: null });
  });
});
