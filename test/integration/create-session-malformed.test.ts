/**
 * create-session over HTTP with malformed requests: bodies that are not JSON or not a JSON object,
 * empty, of another content type, with a `__proto__` key, at and over the 64 KiB body limit, and
 * several MiB (refused without a crash, the service keeps serving).
 */
import { afterAll, beforeAll, describe, expect, test } from '@jest/globals';
import type { TestKey } from '../support/keys.js';
import type { Stack } from '../support/local-stack.js';
import { startPartnerStack, type PartnerStack } from '../support/partner-stack.js';
import { API, failure } from '../support/sessions-api.js';

let stack: Stack;
let api: PartnerStack['api'];
let partner: TestKey;
beforeAll(async () => {
  ({ stack, partner, api } = await startPartnerStack());
});
afterAll(() => stack.stop());

describe('create-session: malformed requests', () => {
  const raw = (body: string, contentType = 'application/json', apiKey = partner.raw) =>
    stack.request(`${API}?action=create-session`, {
      method: 'POST',
      headers: { 'content-type': contentType, 'x-api-key': apiKey },
      body,
    });

  test('malformed JSON: 400', async () => {
    for (const body of ['{"game_id":', '{game_id: 101}', "{'game_id': 101}", 'game_id=101']) {
      const reply = await raw(body);
      expect(reply.status).toBe(400);
      expect(reply.body).toEqual(failure('Request body is not valid JSON'));
    }
  });

  test.each([
    ['an array', '[{"game_id":101}]'],
    ['a string', '"game_id"'],
    ['a number', '101'],
    ['null', 'null'],
  ])('a JSON body that is %s: 400', async (_name, body) => {
    const reply = await raw(body);
    expect(reply.status).toBe(400);
    expect(reply.body).toEqual(failure('Request body must be a JSON object'));
  });

  test('an empty body: 400', async () => {
    const reply = await raw('');
    expect(reply.status).toBe(400);
    expect(reply.body.success).toBe(false);
  });

  test('a non-JSON content type: 400', async () => {
    const reply = await raw('{"game_id":101}', 'text/plain');
    expect(reply.status).toBe(400);
    expect(reply.body).toEqual(failure('Content-Type must be application/json'));
    const form = await raw('game_id=101', 'application/x-www-form-urlencoded');
    expect(form.status).toBe(400);
  });

  test('application/json with a charset is accepted', async () => {
    expect((await raw('{"game_id":101}', 'application/json; charset=utf-8')).status).toBe(200);
  });

  test('a __proto__ key is refused, not merged', async () => {
    const reply = await raw('{"game_id":101,"__proto__":{"stream_id":201}}');
    expect(reply.status).toBe(400);
    expect(reply.body.success).toBe(false);
  });

  test('a body of exactly 64 KiB is read; one byte more is 413', async () => {
    const json = '{"game_id":101}';
    const inside = json + ' '.repeat(64 * 1024 - json.length);
    expect(Buffer.byteLength(inside)).toBe(65_536);
    expect((await raw(inside)).status).toBe(200);
    const outside = await raw(inside + ' ');
    expect(outside.status).toBe(413);
    expect(outside.body.success).toBe(false);
  });

  test('a body of several MiB is refused without a crash, and the service keeps serving', async () => {
    const reply = await raw(JSON.stringify({ game_id: 101, metadata: { blob: 'x'.repeat(3 * 1024 * 1024) } }));
    expect(reply.status).toBe(413);
    expect(reply.body.success).toBe(false);
    expect((await api.create({ game_id: 101 })).status).toBe(200);
  });
});
