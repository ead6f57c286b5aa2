import { afterAll, beforeAll, describe, expect, test } from '@jest/globals';
import { startStack, type Stack } from '../support/local-stack.js';

let stack: Stack;
let key: string;
beforeAll(async () => {
  stack = await startStack();
  key = stack.credentials.api_key;
});
afterAll(() => stack.stop());

const create = (body: unknown, apiKey = key) => stack.post('create-session', body, { 'x-api-key': apiKey });
const validate = (token: string) => stack.request(`/api/org-api-keys?action=validate-session&token=${encodeURIComponent(token)}`);
const consume = (token: unknown, extra: Record<string, unknown> = {}) => stack.post('consume-session', { token, ...extra });

describe('lifecycle', () => {
  test('create, validate, consume once', async () => {
    const created = await create({ game_id: 101, external_ref: 'order-1', metadata: { user: 7 } });
    expect(created.status).toBe(200);
    expect(created.body.success).toBe(true);
    const { token, expires_at } = created.body.data;
    expect(token).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    expect(expires_at).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/);
    expect(created.body.data).toEqual({ token, game_id: 101, stream_id: null, expires_at, external_ref: 'order-1' });

    const v = await validate(token.toUpperCase());
    expect(v.status).toBe(200);
    expect(v.body.data).toEqual({
      valid: true,
      status: 'active',
      game_id: 101,
      stream_id: null,
      expires_at,
      external_ref: 'order-1',
      metadata: { user: 7 },
      player_bound: false,
    });

    const c = await consume(token, { player_uuid: 'player-1' });
    expect(c.status).toBe(200);
    expect(c.body.data).toMatchObject({ org_id: 1, game_id: 101, stream_id: null, external_ref: 'order-1', metadata: { user: 7 } });
    expect(Number.isSafeInteger(c.body.data.session_id) && c.body.data.session_id > 0).toBe(true);

    const again = await consume(token);
    expect(again.status).toBe(410);
    expect(again.body).toEqual({
      success: false,
      error: 'Session is invalid, already consumed, or expired',
      code: expect.any(String),
      request_id: expect.any(String),
    });
    expect((await validate(token)).body.data).toMatchObject({ valid: false, status: 'consumed' });
  });

  test('a stream token: create, validate, consume once', async () => {
    const created = await create({ stream_id: 201, external_ref: 'viewer-1' });
    expect(created.status).toBe(200);
    const { token, expires_at } = created.body.data;
    expect(created.body.data).toEqual({ token, game_id: null, stream_id: 201, expires_at, external_ref: 'viewer-1' });
    expect((await validate(token)).body.data).toEqual({
      valid: true,
      status: 'active',
      game_id: null,
      stream_id: 201,
      expires_at,
      external_ref: 'viewer-1',
      metadata: null,
      player_bound: false,
    });
    const c = await consume(token);
    expect(c.status).toBe(200);
    expect(c.body.data).toMatchObject({ org_id: 1, game_id: null, stream_id: 201, external_ref: 'viewer-1', metadata: null });
    expect((await consume(token)).status).toBe(410);
  });

  test('create, revoke, then validate says revoked and consume is 410', async () => {
    const { token } = (await create({ game_id: 102 })).body.data;
    const revoked = await stack.post('revoke-session', { token }, { 'x-api-key': key });
    expect(revoked.status).toBe(200);
    expect(revoked.body.data).toMatchObject({ valid: false, status: 'revoked', game_id: 102 });
    expect((await validate(token)).body.data).toMatchObject({ valid: false, status: 'revoked' });
    expect((await consume(token)).status).toBe(410);
  });
});
