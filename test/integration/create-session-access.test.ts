/**
 * create-session over HTTP, who may mint what: rule 2 of the specification (the x-api-key: missing,
 * malformed, unknown, revoked, expired, deleted: 401), the org's tier (Business or higher, else
 * 403) and rule 3, scope (the key's org and its allow-lists of games and streams, else 403).
 */
import { afterAll, beforeAll, describe, expect, test } from '@jest/globals';
import { generateRawKey } from '../../shared/keys/api-keys.js';
import { createTestKey, deleteKeyRecord, putKeyRecord } from '../support/keys.js';
import type { Stack } from '../support/local-stack.js';
import { startPartnerStack, type PartnerStack } from '../support/partner-stack.js';
import { failure } from '../support/sessions-api.js';

let stack: Stack;
let api: PartnerStack['api'];
beforeAll(async () => {
  ({ stack, api } = await startPartnerStack());
});
afterAll(() => stack.stop());

const MINUTE = 60_000;

describe('create-session: rule 2, credentials', () => {
  test('missing x-api-key: 401', async () => {
    const reply = await api.create({ game_id: 101 }, null);
    expect(reply.status).toBe(401);
    expect(reply.body).toEqual(failure('Missing API key (x-api-key header)'));
    expect(reply.headers.get('ratelimit')).toBeNull();
  });

  test('an empty x-api-key: 401', async () => {
    expect((await api.create({ game_id: 101 }, '')).status).toBe(401);
  });

  test.each([
    ['too short', 'dpk_0123456789abcdef'],
    ['39 hex characters', `dpk_${'a'.repeat(39)}`],
    ['41 hex characters', `dpk_${'a'.repeat(41)}`],
    ['upper-case hex', `dpk_${'A'.repeat(40)}`],
    ['not hex', `dpk_${'g'.repeat(40)}`],
    ['another prefix', `pk_${'a'.repeat(40)}`],
    ['a bearer token', 'Bearer abc.def.ghi'],
  ])('a malformed key (%s): 401', async (_name, apiKey) => {
    const reply = await api.create({ game_id: 101 }, apiKey);
    expect(reply.status).toBe(401);
    expect(reply.body).toEqual(failure('Invalid API key'));
  });

  test('a well-formed key that was never issued: 401', async () => {
    const reply = await api.create({ game_id: 101 }, generateRawKey());
    expect(reply.status).toBe(401);
    expect(reply.body).toEqual(failure('Invalid API key'));
  });

  test('a revoked key: 401 at once; reactivated it works again; its tokens stay valid', async () => {
    const key = await createTestKey(stack);
    const token = await api.mint({ game_id: 101 }, key.raw);
    await putKeyRecord(stack, { ...key.record, is_active: false });
    const reply = await api.create({ game_id: 101 }, key.raw);
    expect(reply.status).toBe(401);
    expect(reply.body).toEqual(failure('API key has been revoked'));
    expect((await api.validate(token)).body.data).toMatchObject({ valid: true, status: 'active' });

    await putKeyRecord(stack, { ...key.record, is_active: true });
    expect((await api.create({ game_id: 101 }, key.raw)).status).toBe(200);
    expect((await api.consume({ token })).status).toBe(200);
  });

  test('a key whose expires_at has passed: 401; one expiring later works', async () => {
    const past = await createTestKey(stack, { expires_at: new Date(stack.clock.now() - 1000).toISOString() });
    const reply = await api.create({ game_id: 101 }, past.raw);
    expect(reply.status).toBe(401);
    expect(reply.body).toEqual(failure('API key has expired'));
    const future = await createTestKey(stack, { expires_at: new Date(stack.clock.now() + 3_600_000).toISOString() });
    expect((await api.create({ game_id: 101 }, future.raw)).status).toBe(200);
  });

  test('a key stops authenticating when its expires_at is reached (injected clock)', async () => {
    const key = await createTestKey(stack, { expires_at: new Date(stack.clock.now() + 2 * MINUTE).toISOString() });
    expect((await api.create({ game_id: 101 }, key.raw)).status).toBe(200);
    stack.clock.advance(2 * MINUTE);
    const reply = await api.create({ game_id: 101 }, key.raw);
    expect(reply.status).toBe(401);
    expect(reply.body).toEqual(failure('API key has expired'));
  });

  test('a deleted key: 401 at once', async () => {
    const key = await createTestKey(stack);
    expect((await api.create({ game_id: 101 }, key.raw)).status).toBe(200);
    await deleteKeyRecord(stack, key.record);
    const reply = await api.create({ game_id: 101 }, key.raw);
    expect(reply.status).toBe(401);
    expect(reply.body).toEqual(failure('Invalid API key'));
  });
});

describe('create-session: tiers', () => {
  test('a key of a free-tier org: 403 Business tier or higher required', async () => {
    const tiny = await createTestKey(stack, {}, { org_id: 3, tier: 'free' });
    const reply = await api.create({ game_id: 501 }, tiny.raw);
    expect(reply.status).toBe(403);
    expect(reply.body).toEqual(failure('Business tier or higher required'));
  });

  test('a key of a pro-tier org: 403 as well', async () => {
    const pro = await createTestKey(stack, {}, { org_id: 3, tier: 'pro' });
    const reply = await api.create({ game_id: 501 }, pro.raw);
    expect(reply.status).toBe(403);
    expect(reply.body).toEqual(failure('Business tier or higher required'));
  });
});

describe('create-session: rule 3, scope', () => {
  test.each([
    ['game', 101],
    ['game', 102],
    ['stream', 201],
    ['stream', 202],
  ])('an unscoped key serves its org’s %s %i', async (kind, id) => {
    expect((await api.create({ [`${kind}_id`]: id })).status).toBe(200);
  });

  test.each([
    ['another org’s game', 'game', 301],
    ['another org’s stream', 'stream', 401],
    ['an unknown game', 'game', 999_999],
    ['an unknown stream', 'stream', 999_999],
  ])('%s: 403', async (_name, kind, id) => {
    const reply = await api.create({ [`${kind}_id`]: id });
    expect(reply.status).toBe(403);
    expect(reply.body).toEqual(failure(`This API key has no access to ${kind} ${id}`));
  });

  test('allowed_game_ids limits games only', async () => {
    const key = await createTestKey(stack, { allowed_game_ids: [101] });
    expect((await api.create({ game_id: 101 }, key.raw)).status).toBe(200);
    expect((await api.create({ game_id: 102 }, key.raw)).status).toBe(403);
    expect((await api.create({ stream_id: 201 }, key.raw)).status).toBe(200);
  });

  test('an empty allowed_game_ids allows no game', async () => {
    const key = await createTestKey(stack, { allowed_game_ids: [] });
    expect((await api.create({ game_id: 101 }, key.raw)).status).toBe(403);
    expect((await api.create({ game_id: 102 }, key.raw)).status).toBe(403);
    expect((await api.create({ stream_id: 202 }, key.raw)).status).toBe(200);
  });

  test('allowed_stream_ids limits streams only', async () => {
    const key = await createTestKey(stack, { allowed_stream_ids: [202] });
    expect((await api.create({ stream_id: 202 }, key.raw)).status).toBe(200);
    expect((await api.create({ stream_id: 201 }, key.raw)).status).toBe(403);
    expect((await api.create({ game_id: 101 }, key.raw)).status).toBe(200);
  });

  test('an empty allowed_stream_ids allows no stream', async () => {
    const key = await createTestKey(stack, { allowed_stream_ids: [] });
    expect((await api.create({ stream_id: 201 }, key.raw)).status).toBe(403);
    expect((await api.create({ game_id: 102 }, key.raw)).status).toBe(200);
  });

  test('an allow-list naming another org’s game does not open it', async () => {
    const key = await createTestKey(stack, { allowed_game_ids: [101, 301], allowed_stream_ids: [401] });
    expect((await api.create({ game_id: 301 }, key.raw)).status).toBe(403);
    expect((await api.create({ stream_id: 401 }, key.raw)).status).toBe(403);
    expect((await api.create({ game_id: 101 }, key.raw)).status).toBe(200);
  });

  test('a key of another org cannot mint for this org', async () => {
    const globex = await createTestKey(stack, {}, { org_id: 2, tier: 'enterprise' });
    expect((await api.create({ game_id: 101 }, globex.raw)).status).toBe(403);
    expect((await api.create({ stream_id: 401 }, globex.raw)).status).toBe(200);
  });
});
