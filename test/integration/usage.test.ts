/**
 * usage: owners, admins and analysts read the session report with the key calls refused per day
 * (429 by rate limit, 403 out of scope), through the MCP report's domain function (bearer).
 */
import { afterAll, beforeAll, describe, expect, test } from '@jest/globals';
import { adminApi, type AdminApi } from '../support/admin-api.js';
import { createTestKey, startOfNextMinute, type TestKey } from '../support/keys.js';
import { startStack, type Stack } from '../support/local-stack.js';
import { failure, sessionsApi } from '../support/sessions-api.js';

let stack: Stack;
let admin: AdminApi;
let limited: TestKey;
let today: string;
const zero = { created: 0, active: 0, consumed: 0, expired: 0, revoked: 0, rate_limited: 0, forbidden: 0 };

beforeAll(async () => {
  stack = await startStack();
  admin = adminApi(stack);
  await stack.services.stores.catalog.putMember(1, 'acme-owner', 'owner');
  startOfNextMinute(stack);
  today = new Date(stack.clock.now()).toISOString().slice(0, 10);
  limited = await createTestKey(stack, { rate_limit_per_minute: 2, allowed_game_ids: [101] });
  const api = sessionsApi(stack, () => limited.raw);
  expect((await api.create({ game_id: 101 })).status).toBe(200);
  expect((await api.create({ game_id: 102 })).status).toBe(403);
  expect((await api.create({ game_id: 101 })).status).toBe(429);
  expect((await api.create({ game_id: 101 })).status).toBe(429);
  stack.clock.advance(10_000);
  expect((await api.create({ game_id: 101 })).status).toBe(429);
});
afterAll(() => stack.stop());

describe('usage', () => {
  test('sessions and refused calls of the day, per key: a 429 (audited, then from memory) and a 403', async () => {
    const res = await admin.usage({ org_id: 1, from: today, to: today, key_id: limited.record.id });
    expect(res.status).toBe(200);
    const counts = { ...zero, created: 1, active: 1, rate_limited: 3, forbidden: 1 };
    expect(res.body).toEqual({
      success: true,
      data: {
        from: today,
        to: today,
        complete_from: expect.any(String),
        truncated: false,
        totals: counts,
        days: [{ date: today, ...counts }],
        by_target: [
          { date: today, game_id: 101, stream_id: null, ...zero, created: 1, active: 1, rate_limited: 1 },
          { date: today, game_id: 102, stream_id: null, ...zero, forbidden: 1 },
        ],
        by_key: [{ date: today, key_id: limited.record.id, ...counts }],
      },
    });
  });

  test('without key_id: every key of the org', async () => {
    const res = await admin.usage({ org_id: 1, from: today, to: today });
    expect(res.body.data.by_key.find((k: any) => k.key_id === limited.record.id)).toMatchObject({ rate_limited: 3, forbidden: 1 });
  });

  test.each(['acme-owner', 'acme-admin', 'acme-analyst'])('%s may read it', async (as) => {
    expect((await admin.usage({ org_id: 1, from: today, to: today }, as)).status).toBe(200);
  });

  test.each([
    ['acme-member', 'Only owners, admins and analysts of the organization may read its usage'],
    ['acme-viewer', 'Only owners, admins and analysts of the organization may read its usage'],
    ['globex-admin', 'You are not a member of organization 1'],
  ])('%s may not (403 naming who may)', async (as, message) => {
    const res = await admin.usage({ org_id: 1, from: today, to: today }, as);
    expect(res.status).toBe(403);
    expect(res.body).toEqual(failure(message));
  });

  test('no bearer: 401', async () => {
    expect((await stack.request(`/api/org-api-keys?action=usage&org_id=1&from=${today}&to=${today}`)).status).toBe(401);
  });

  test.each([
    [{ org_id: 1, to: '2026-01-02' }, 'from'],
    [{ org_id: 1, from: '2026-13-01', to: '2026-13-02' }, 'from'],
    [{ org_id: 1, from: '2026-01-01', to: '2026-01-02', key_id: 'x' }, 'key_id'],
    [{ org_id: 'one', from: '2026-01-01', to: '2026-01-02' }, 'org_id'],
  ])('bad input %p is 400 naming the field', async (params, param) => {
    const res = await admin.usage(params);
    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({ success: false, code: 'invalid_input', param });
  });

  test.each([
    [{ from: '2026-02-10', to: '2026-02-09' }, 'to: must not be before from'],
    [{ from: '2026-01-01', to: '2026-02-01' }, 'to: the range may span at most 31 days'],
    // The one day whose next day has no four-digit year (the reads go up to the next day's start).
    [{ from: '9999-12-31', to: '9999-12-31' }, 'to: must be before 9999-12-31'],
  ])('a bad range %p is 400 naming to (param)', async (range, message) => {
    const res = await admin.usage({ org_id: 1, ...range });
    expect(res.status).toBe(400);
    expect(res.body).toEqual(failure(message));
    expect(res.body).toMatchObject({ code: 'invalid_input', param: 'to' });
  });
});
