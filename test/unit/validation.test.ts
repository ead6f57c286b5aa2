/** Validation failures as the 400 messages clients read: the field, then what is wrong with it. */
import { describe, expect, test } from '@jest/globals';
import { InvalidInput } from '../../shared/domain/errors.js';
import { parseWith } from '../../shared/http/validation.js';
import { ConsumeSessionBody, CreateSessionBody } from '../../shared/schemas/sessions.js';

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
    expect(refusal(ConsumeSessionBody, { token: TOKEN, player_uuid: 5 })).toBe(
      'player_uuid: Invalid input: expected string, received number',
    );
    expect(refusal(ConsumeSessionBody, { token: 42 })).toBe('token: Invalid input: expected string, received number');
    expect(refusal(CreateSessionBody, { game_id: 'one' })).toBe('game_id: Invalid input: expected number, received string');
  });

  test('a rule names its limit; a body that is not an object is refused as such', () => {
    expect(refusal(ConsumeSessionBody, { token: TOKEN, player_uuid: 'p'.repeat(256) })).toBe(
      'player_uuid: Too big: expected string to have <=255 characters',
    );
    expect(refusal(ConsumeSessionBody, [])).toBe('Request body must be a JSON object');
  });

  test('valid input comes back parsed (token lower-cased, absent optional fields null)', () => {
    expect(parseWith(ConsumeSessionBody, { token: TOKEN.toUpperCase() }, 'body')).toEqual({ token: TOKEN, player_uuid: null });
  });
});
