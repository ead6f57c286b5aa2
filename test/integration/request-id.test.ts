/**
 * One request id (docs/decisions.md#audit): the `request_id` of an answer — the caller's
 * `x-request-id` when valid, else a generated one — is the id of its audit record and of its log
 * line. What must be unique per request still is: two requests that share an `x-request-id` keep a
 * record each, and a revocation's mark of its own request cannot be borrowed by another.
 */
import { afterAll, beforeAll, describe, expect, test } from '@jest/globals';
import { auditOfKey, auditOfRequest, createTestKey, startOfNextMinute, UNLIMITED } from '../support/keys.js';
import { capturedLogs, startStack, type Stack } from '../support/local-stack.js';

let stack: Stack;
beforeAll(async () => {
  stack = await startStack();
});
afterAll(() => stack.stop());

/** The request lines written since `from`. */
function requestLinesSince(from: number): Record<string, any>[] {
  return capturedLogs
    .slice(from)
    .join('')
    .split('\n')
    .filter((l) => l.startsWith('{'))
    .map((l) => JSON.parse(l) as Record<string, any>)
    .filter((l) => l.message === 'request' || l.message === 'request failed');
}

const unique = (name: string) => `${name}.${Math.random().toString(36).slice(2)}`;

describe('the caller’s x-request-id is the id of the answer, the log line and the audit record', () => {
  test('create-session: answer, log line and audit record carry the caller’s id', async () => {
    const key = await createTestKey(stack, UNLIMITED);
    const id = unique('partner-req');
    const from = capturedLogs.length;
    const reply = await stack.post('create-session', { game_id: 101 }, { 'x-api-key': key.raw, 'x-request-id': id });
    expect(reply.status).toBe(200);
    expect(reply.headers.get('x-request-id')).toBe(id);
    const [line] = requestLinesSince(from);
    expect(line).toMatchObject({ operation: 'create-session', request_id: id });
    const records = await auditOfKey(stack, key.record.id);
    expect(records.map((r) => [r.action, r.request_id])).toEqual([['create-session', id]]);
    // The gateway's own id stays beside it, in the line and the record alike.
    expect(records[0]!.gateway_request_id).toBe(line!.gateway_request_id);
    expect(line!.gateway_request_id).toMatch(/^[0-9a-f-]{36}$/);
  });

  test('a refusal (400, counted) and a rate-limited call (429, its record rewritten) keep the caller’s id', async () => {
    startOfNextMinute(stack);
    const key = await createTestKey(stack, { rate_limit_per_minute: 2 });
    const [bad, ok, limited] = [unique('bad'), unique('ok'), unique('limited')];
    expect((await stack.post('create-session', { game_id: 'x' }, { 'x-api-key': key.raw, 'x-request-id': bad })).status).toBe(400);
    expect((await stack.post('create-session', { game_id: 101 }, { 'x-api-key': key.raw, 'x-request-id': ok })).status).toBe(200);
    const refused = await stack.post('create-session', { game_id: 101 }, { 'x-api-key': key.raw, 'x-request-id': limited });
    expect(refused.status).toBe(429);
    expect(refused.body.request_id).toBe(limited);
    expect((await auditOfKey(stack, key.record.id)).map((r) => [r.request_id, r.status])).toEqual([
      [bad, 400],
      [ok, 200],
      [limited, 429],
    ]);
  });

  test('an admin’s update-key: its audit record carries the caller’s id', async () => {
    const key = await createTestKey(stack, UNLIMITED);
    const id = unique('console');
    const reply = await stack.request('/api/org-api-keys', {
      method: 'PATCH',
      headers: {
        authorization: `Bearer ${await stack.issuer.sign('acme-admin')}`,
        'content-type': 'application/json',
        'x-request-id': id,
      },
      body: JSON.stringify({ id: key.record.id, org_id: 1, name: 'renamed' }),
    });
    expect(reply.status).toBe(200);
    expect((await auditOfRequest(stack, 1, id)).map((r) => [r.action, r.key_id])).toEqual([['update-key', key.record.id]]);
  });

  test('without a valid x-request-id the generated id is the record’s, as answered', async () => {
    const key = await createTestKey(stack, UNLIMITED);
    const reply = await stack.post('create-session', { game_id: 101 }, { 'x-api-key': key.raw, 'x-request-id': 'not valid!' });
    const answered = reply.headers.get('x-request-id')!;
    expect(answered).toMatch(/^[0-9a-f-]{36}$/);
    const [record] = await auditOfKey(stack, key.record.id);
    expect(record!.request_id).toBe(answered);
    expect(record!.gateway_request_id).toBeUndefined();
  });
});

describe('what must be unique per request stays unique when callers share an x-request-id', () => {
  test('two calls with one x-request-id keep an audit record each', async () => {
    const key = await createTestKey(stack, UNLIMITED);
    const id = unique('same');
    const replies = await Promise.all(
      [101, 102, 101].map((game_id) => stack.post('create-session', { game_id }, { 'x-api-key': key.raw, 'x-request-id': id })),
    );
    expect(replies.map((r) => r.status)).toEqual([200, 200, 200]);
    const records = await auditOfRequest(stack, 1, id);
    expect(records).toHaveLength(3);
    expect(new Set(records.map((r) => r.gateway_request_id)).size).toBe(3);
  });

  test('another org’s key reusing the x-request-id of a revocation cannot pass its retry mark: 404, nothing disclosed', async () => {
    const [mine, theirs] = [
      await createTestKey(stack, UNLIMITED),
      await createTestKey(stack, UNLIMITED, { org_id: 2, tier: 'enterprise' }),
    ];
    const minted = await stack.post('create-session', { game_id: 101, external_ref: 'secret-order' }, { 'x-api-key': mine.raw });
    const token = minted.body.data.token as string;
    const id = unique('revoke');
    const revoked = await stack.post('revoke-session', { token }, { 'x-api-key': mine.raw, 'x-request-id': id });
    expect(revoked.status).toBe(200);
    const borrowed = await stack.post('revoke-session', { token }, { 'x-api-key': theirs.raw, 'x-request-id': id });
    expect(borrowed.status).toBe(404);
    expect(JSON.stringify(borrowed.body)).not.toContain('secret-order');
  });
});
