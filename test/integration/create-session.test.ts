/**
 * create-session over HTTP: every rule of the specification, every bound of docs/decisions.md (just
 * inside and just outside), malformed bodies, credentials, tiers, scope and its audit record.
 */
import { afterAll, beforeAll, describe, expect, test } from '@jest/globals';
import { generateRawKey } from '../../shared/domain/api-keys.js';
import {
  auditOfKey,
  auditOfRequest,
  createTestKey,
  deleteKeyRecord,
  putKeyRecord,
  roomInMinute,
  windowCounts,
  UNLIMITED,
  type TestKey,
} from '../support/keys.js';
import { startStack, type Stack } from '../support/local-stack.js';
import { API, failure, sessionsApi } from '../support/sessions-api.js';

let stack: Stack;
let api: ReturnType<typeof sessionsApi>;
let partner: TestKey;
beforeAll(async () => {
  stack = await startStack();
  // A key of org 1 (like the demo key) whose limits the file's calls never meet.
  partner = await createTestKey(stack, UNLIMITED);
  api = sessionsApi(stack, () => partner.raw);
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

  test('unknown body fields are refused by name (issue 18: a misspelt field must not be ignored); the org comes from the key', async () => {
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

describe('create-session: audit and metering', () => {
  test('a successful call writes one audit record naming key, org, target, outcome and caller', async () => {
    const key = await createTestKey(stack);
    const reply = await stack.post('create-session', { game_id: 101 }, { 'x-api-key': key.raw, 'user-agent': 'partner-backend/1.0' });
    expect(reply.status).toBe(200);
    const requestId = reply.headers.get('x-request-id');
    expect(requestId).toBeTruthy();
    const records = await auditOfRequest(stack, 1, requestId);
    expect(records).toHaveLength(1);
    const record = records[0]!;
    expect(record).toMatchObject({
      org_id: 1,
      action: 'create-session',
      status: 200,
      key_id: key.record.id,
      key_prefix: key.raw.slice(0, 8),
      game_id: 101,
      stream_id: null,
      token_prefix: reply.body.data.token.slice(0, 8),
      user_agent: 'partner-backend/1.0',
      request_id: requestId,
    });
    expect(record.source_ip).toMatch(/127\.0\.0\.1|::1/);
    // Retained 90 days (TTL, epoch seconds).
    const ttl = (record as unknown as { ttl: number }).ttl;
    expect(ttl - Math.floor(Date.parse(record.at) / 1000)).toBe(90 * 86_400);
    expect(Math.abs(Date.parse(record.at) - stack.clock.now())).toBeLessThan(10_000);
    // The whole token is kept only as the storage field the session report reads (never returned
    // by the audit log: see audit-log.test.ts); nothing else holds it, nor the raw key.
    const { minted_token, ...shown } = record;
    expect(minted_token).toBe(reply.body.data.token);
    expect(JSON.stringify(shown)).not.toContain(reply.body.data.token);
    expect(JSON.stringify(record)).not.toContain(key.raw);
    const log = await stack.request(`/api/org-api-keys?action=audit-log&org_id=1&key_id=${key.record.id}`, {
      headers: { authorization: `Bearer ${await stack.issuer.sign('acme-admin')}` },
    });
    expect(log.status).toBe(200);
    expect(JSON.stringify(log.body)).not.toContain(reply.body.data.token);
  });

  test('a call stamps the key’s last_used_at', async () => {
    const key = await createTestKey(stack);
    expect((await stack.services.stores.keys.getByHash(key.record.key_hash))?.last_used_at).toBeNull();
    const before = stack.clock.now();
    expect((await api.create({ game_id: 101 }, key.raw)).status).toBe(200);
    const stamped = (await stack.services.stores.keys.getByHash(key.record.key_hash))?.last_used_at;
    expect(Date.parse(stamped ?? '')).toBeGreaterThanOrEqual(before);
    expect(Date.parse(stamped ?? '')).toBeLessThanOrEqual(stack.clock.now());
  });

  test('a stream call is audited with its stream', async () => {
    const key = await createTestKey(stack);
    expect((await api.create({ stream_id: 202 }, key.raw)).status).toBe(200);
    expect(await auditOfKey(stack, key.record.id)).toEqual([
      expect.objectContaining({ action: 'create-session', status: 200, game_id: null, stream_id: 202 }),
    ]);
  });

  test('a call refused after authentication (403 out of scope) is counted and audited with 403', async () => {
    roomInMinute(stack);
    const key = await createTestKey(stack, { allowed_game_ids: [] });
    const reply = await api.create({ game_id: 101 }, key.raw);
    expect(reply.status).toBe(403);
    expect(reply.headers.get('ratelimit-policy')).toBe('"minute";q=60;w=60, "day";q=10000;w=86400');
    expect(await windowCounts(stack, key.record)).toEqual({ minute: 1, day: 1 });
    const records = await auditOfKey(stack, key.record.id);
    expect(records).toEqual([expect.objectContaining({ action: 'create-session', status: 403, game_id: 101, token_prefix: null })]);
  });

  test('a malformed request of a valid key (400) is counted and audited, with RateLimit headers', async () => {
    roomInMinute(stack);
    const key = await createTestKey(stack);
    for (const body of [{}, { game_id: 101, stream_id: 201 }, { game_id: 101, expires_in_minutes: 0 }, '{"game_id":', '[]']) {
      const reply = await api.create(body, key.raw);
      expect(reply.status).toBe(400);
      expect(reply.body.success).toBe(false);
      expect(reply.headers.get('ratelimit-policy')).toBe('"minute";q=60;w=60, "day";q=10000;w=86400');
    }
    const utf16 = await stack.post('create-session', '{"game_id":101}', {
      'x-api-key': key.raw,
      'content-type': 'application/json; charset=utf-16',
    });
    expect(utf16.status).toBe(400);
    expect(await windowCounts(stack, key.record)).toEqual({ minute: 6, day: 6 });
    const records = await auditOfKey(stack, key.record.id);
    expect(records).toHaveLength(6);
    for (const r of records) expect(r).toMatchObject({ action: 'create-session', status: 400, key_id: key.record.id });
  });

  test('a missing, unknown, revoked or expired key is 401 whatever the body', async () => {
    const revoked = await createTestKey(stack);
    await putKeyRecord(stack, { ...revoked.record, is_active: false });
    const expired = await createTestKey(stack, { expires_at: new Date(stack.clock.now() - 1000).toISOString() });
    const unknown = `dpk_${'0'.repeat(40)}`;
    for (const body of [{}, { game_id: 'x' }, '{"game_id":', '']) {
      for (const headers of [
        {} as Record<string, string>,
        { 'x-api-key': unknown },
        { 'x-api-key': revoked.raw },
        { 'x-api-key': expired.raw },
      ]) {
        const reply = await stack.post('create-session', body, headers);
        expect([reply.status, reply.body.success]).toEqual([401, false]);
      }
    }
    expect(await auditOfKey(stack, revoked.record.id)).toEqual([]);
  });
});
