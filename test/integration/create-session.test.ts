/**
 * create-session over HTTP, what a partner may ask for: the success answers (game and stream
 * tokens, optional fields, the key's org) and every rule of the specification on the body with
 * every bound of docs/decisions.md (just inside and just outside). Malformed requests, credentials
 * and scope, and the audit record are in the other create-session-*.test.ts files.
 */
import { afterAll, beforeAll, describe, expect, test } from '@jest/globals';
import { createTestKey } from '../support/keys.js';
import type { Stack } from '../support/local-stack.js';
import { startPartnerStack, type PartnerStack } from '../support/partner-stack.js';

let stack: Stack;
let api: PartnerStack['api'];
beforeAll(async () => {
  ({ stack, api } = await startPartnerStack());
});
afterAll(() => stack.stop());

const UUID_V4 = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;
const ISO_MS = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;
const MINUTE = 60_000;

/** Create and check that `expires_at` lies `minutes` after the call (by the stack's clock). */
async function expectLifetime(body: Record<string, unknown>, minutes: number) {
  const before = stack.clock.now();
  const reply = await api.create(body);
  const after = stack.clock.now();
  expect(reply.status).toBe(200);
  const expires = Date.parse(reply.body.data.expires_at);
  expect(expires).toBeGreaterThanOrEqual(before + minutes * MINUTE);
  expect(expires).toBeLessThanOrEqual(after + minutes * MINUTE);
}

/** A 400 whose message names the field (and the bound, when given). */
async function expectInvalid(body: unknown, field: string, bound?: string) {
  const reply = await api.create(body);
  expect(reply.status).toBe(400);
  expect(reply.body.success).toBe(false);
  expect(reply.body.error).toContain(field);
  if (bound) expect(reply.body.error).toContain(bound);
}

/** Metadata `{"m":"<filler>"}` whose serialized form is exactly `bytes` long (`unit` repeated, then ASCII). */
function metadataOfBytes(bytes: number, unit = 'x'): Record<string, string> {
  const overhead = Buffer.byteLength(JSON.stringify({ m: '' }));
  const unitBytes = Buffer.byteLength(unit);
  const units = Math.floor((bytes - overhead) / unitBytes);
  const value = unit.repeat(units) + 'x'.repeat(bytes - overhead - units * unitBytes);
  const metadata = { m: value };
  expect(Buffer.byteLength(JSON.stringify(metadata))).toBe(bytes);
  return metadata;
}

describe('create-session: success', () => {
  test('a game token: UUID v4, default lifetime 1440 minutes, the documented fields only', async () => {
    const before = stack.clock.now();
    const reply = await api.create({ game_id: 101, external_ref: 'order-1', metadata: { user: 'u-7' } });
    expect(reply.status).toBe(200);
    const { token, expires_at } = reply.body.data;
    expect(token).toMatch(UUID_V4);
    expect(expires_at).toMatch(ISO_MS);
    expect(reply.body).toEqual({ success: true, data: { token, game_id: 101, stream_id: null, expires_at, external_ref: 'order-1' } });
    expect(Date.parse(expires_at) - before).toBeGreaterThanOrEqual(1440 * MINUTE);
    expect(Date.parse(expires_at) - before).toBeLessThan(1440 * MINUTE + 10_000);
    expect(reply.headers.get('content-type')).toContain('application/json');
  });

  test('a stream token has game_id null', async () => {
    const reply = await api.create({ stream_id: 201, external_ref: 'viewer-9' });
    expect(reply.status).toBe(200);
    expect(reply.body.data).toMatchObject({ game_id: null, stream_id: 201, external_ref: 'viewer-9' });
    const view = await api.validate(reply.body.data.token);
    expect(view.body.data).toMatchObject({ valid: true, status: 'active', game_id: null, stream_id: 201, metadata: null });
  });

  test('optional fields may be null or absent; absent external_ref reads as null', async () => {
    const reply = await api.create({ game_id: 102, stream_id: null, external_ref: null, metadata: null });
    expect(reply.status).toBe(200);
    expect(reply.body.data).toMatchObject({ game_id: 102, stream_id: null, external_ref: null });
    const bare = await api.create({ stream_id: 202, game_id: null });
    expect(bare.status).toBe(200);
    expect(bare.body.data.external_ref).toBeNull();
  });

  test('expires_in_minutes null means the default lifetime', async () => {
    await expectLifetime({ game_id: 101, expires_in_minutes: null }, 1440);
  });

  test('unknown body fields are refused by name (a misspelt field must not be ignored); the org comes from the key', async () => {
    const reply = await api.create({ game_id: 101, color: 'blue', org_id: 2 });
    expect(reply.status).toBe(400);
    expect(reply.body).toEqual({
      success: false,
      error: 'unknown fields color, org_id',
      code: 'invalid_input',
      param: 'color',
      request_id: reply.headers.get('x-request-id'),
    });
    const minted = await api.create({ game_id: 101 });
    const consumed = await api.consume({ token: minted.body.data.token });
    expect(consumed.body.data.org_id).toBe(1);
  });

  test('the token of an enterprise org key belongs to that org', async () => {
    const globex = await createTestKey(stack, {}, { org_id: 2, tier: 'enterprise' });
    const token = await api.mint({ game_id: 301 }, globex.raw);
    const consumed = await api.consume({ token });
    expect(consumed.status).toBe(200);
    expect(consumed.body.data).toMatchObject({ org_id: 2, game_id: 301, stream_id: null });
  });
});

describe('create-session: rule 1 and the bounds of docs/decisions.md', () => {
  test('neither game_id nor stream_id: 400', async () => {
    await expectInvalid({}, 'game_id or stream_id');
    await expectInvalid({ game_id: null, stream_id: null, external_ref: 'x' }, 'game_id or stream_id');
  });

  test('both game_id and stream_id: 400', async () => {
    await expectInvalid({ game_id: 101, stream_id: 201 }, 'game_id or stream_id');
  });

  test.each([
    ['zero', 0],
    ['negative', -101],
    ['fractional', 101.5],
    ['a numeric string', '101'],
    ['a boolean', true],
    ['an object', { id: 101 }],
    ['2^53 (not JSON-safe)', 2 ** 53],
  ])('game_id %s: 400', async (_name, game_id) => {
    await expectInvalid({ game_id }, 'game_id');
  });

  test.each([
    ['game_id', 1],
    ['game_id', Number.MAX_SAFE_INTEGER],
    ['stream_id', 1],
    ['stream_id', Number.MAX_SAFE_INTEGER],
  ])('%s %d is a valid id (no such playable: 403, not 400)', async (field, id) => {
    const reply = await api.create({ [field]: id });
    expect(reply.status).toBe(403);
  });

  test.each([
    ['zero', 0],
    ['a numeric string', '201'],
    ['fractional', 1.25],
  ])('stream_id %s: 400', async (_name, stream_id) => {
    await expectInvalid({ stream_id }, 'stream_id');
  });

  test('expires_in_minutes 1 (shortest) and 43200 (30 days) are accepted', async () => {
    await expectLifetime({ game_id: 101, expires_in_minutes: 1 }, 1);
    await expectLifetime({ game_id: 101, expires_in_minutes: 43_200 }, 43_200);
  });

  test.each([
    ['0', 0],
    ['43201', 43_201],
    ['1.5', 1.5],
    ['the string "10"', '10'],
    ['negative', -5],
  ])('expires_in_minutes %s: 400 naming the field', async (_name, expires_in_minutes) => {
    await expectInvalid({ game_id: 101, expires_in_minutes }, 'expires_in_minutes');
  });

  test('expires_in_minutes above the bound names the bound', async () => {
    await expectInvalid({ game_id: 101, expires_in_minutes: 43_201 }, 'expires_in_minutes', '43200');
  });

  test('external_ref of 255 characters is kept; 256 is 400 naming the field and the bound', async () => {
    const ref = 'r'.repeat(255);
    const reply = await api.create({ game_id: 101, external_ref: ref });
    expect(reply.status).toBe(200);
    expect(reply.body.data.external_ref).toBe(ref);
    await expectInvalid({ game_id: 101, external_ref: 'r'.repeat(256) }, 'external_ref', '255');
  });

  test('external_ref that is not a string: 400', async () => {
    await expectInvalid({ game_id: 101, external_ref: 42 }, 'external_ref');
  });

  test('metadata of exactly 4096 bytes serialized is kept; 4097 is 400 naming the field and the bound', async () => {
    const metadata = metadataOfBytes(4096);
    const reply = await api.create({ game_id: 101, metadata });
    expect(reply.status).toBe(200);
    expect((await api.validate(reply.body.data.token)).body.data.metadata).toEqual(metadata);
    await expectInvalid({ game_id: 101, metadata: metadataOfBytes(4097) }, 'metadata', '4096');
  });

  test('the metadata bound counts bytes, not characters', async () => {
    expect((await api.create({ game_id: 101, metadata: metadataOfBytes(4096, 'é') })).status).toBe(200);
    await expectInvalid({ game_id: 101, metadata: metadataOfBytes(4097, 'é') }, 'metadata', '4096');
  });

  test('nested metadata round-trips unchanged', async () => {
    const metadata = { user: { id: 7, tags: ['a', 'b'], vip: true, score: 1.5, note: null } };
    const reply = await api.create({ game_id: 101, metadata });
    expect((await api.validate(reply.body.data.token)).body.data.metadata).toEqual(metadata);
  });

  test.each([
    ['an array', [1, 2]],
    ['an empty array', []],
    ['a string', 'meta'],
    ['a number', 7],
  ])('metadata that is %s: 400', async (_name, metadata) => {
    await expectInvalid({ game_id: 101, metadata }, 'metadata');
  });
});
