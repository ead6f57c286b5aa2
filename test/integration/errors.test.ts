/**
 * Errors a partner can program against (docs/errors.md): the spec's envelope with `code`,
 * `param` and `request_id` beside `success` and `error`, in plain words, naming the right credential,
 * with `WWW-Authenticate` on every 401; and each `?action=` operation also at its own path.
 */
import { describe, expect, test } from '@jest/globals';
import { describeWithStack } from '../support/describe-with-stack.js';
import { API } from '../support/sessions-api.js';

describeWithStack('errors a partner can program against', ({ stack, admin }) => {
  const json = (body: unknown, headers: Record<string, string> = {}): RequestInit => ({
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body: JSON.stringify(body),
  });

  describe('the error body', () => {
    test('holds exactly success, error, code, param (when a field is at fault) and request_id, equal to x-request-id', async () => {
      const reply = await stack.request(`${API}?action=create-session`, json({ gameId: 101 }, { 'x-api-key': stack.credentials.api_key }));
      expect(reply.status).toBe(400);
      expect(reply.body).toEqual({
        success: false,
        error: 'unknown field gameId',
        code: 'invalid_input',
        param: 'gameId',
        request_id: reply.headers.get('x-request-id'),
      });
      expect(reply.headers.get('x-request-id')).toMatch(/^[0-9a-f-]{36}$/);
    });

    test('game and stream: the field to change is the param (the one to add, or the second of two); request ids differ per request', async () => {
      const first = await stack.request(`${API}?action=create-session`, json({}, { 'x-api-key': stack.credentials.api_key }));
      const both = { game_id: 101, stream_id: 201 };
      const second = await stack.request(`${API}?action=create-session`, json(both, { 'x-api-key': stack.credentials.api_key }));
      expect(first.body).toEqual({
        success: false,
        error: 'game_id: exactly one of game_id or stream_id is required',
        code: 'invalid_input',
        param: 'game_id',
        request_id: first.headers.get('x-request-id'),
      });
      expect([second.status, second.body.param, second.body.error]).toEqual([
        400,
        'stream_id',
        'stream_id: exactly one of game_id or stream_id is required',
      ]);
      expect(second.body.request_id).not.toBe(first.body.request_id);
    });

    test.each([
      [{ game_id: 1.5 }, 'game_id: must be an integer', 'game_id'],
      [{ game_id: 101, metadata: [1] }, 'metadata: must be a JSON object', 'metadata'],
      [{ game_id: 101, external_ref: 'x'.repeat(256) }, 'external_ref: must be at most 255 characters', 'external_ref'],
      [{ game_id: 101, expires_in_minutes: 0 }, 'expires_in_minutes: must be at least 1', 'expires_in_minutes'],
    ])('plain words, no validator vocabulary: %j', async (body, error, param) => {
      const reply = await stack.request(`${API}?action=create-session`, json(body, { 'x-api-key': stack.credentials.api_key }));
      expect([reply.status, reply.body.error, reply.body.param, reply.body.code]).toEqual([400, error, param, 'invalid_input']);
      expect(reply.body.error).not.toMatch(/expected|received|Invalid input|Too (big|small)|record/);
    });

    test('a query field at fault is the param', async () => {
      const reply = await stack.request(`${API}?action=validate-session&token=nope`);
      expect(reply.body).toMatchObject({ error: 'token: must be a UUID', code: 'invalid_input', param: 'token' });
    });

    test('codes follow the table: 410 session_gone, 404 not_found, 401 unauthenticated', async () => {
      const gone = await stack.request(`${API}?action=consume-session`, json({ token: '3f2b8c1e-9a4d-4e7f-8b21-6c0d5e9f1a2b' }));
      expect([gone.status, gone.body.code]).toEqual([410, 'session_gone']);
      const missing = await stack.request(`${API}?action=validate-session&token=3f2b8c1e-9a4d-4e7f-8b21-6c0d5e9f1a2b`);
      expect([missing.status, missing.body.code]).toEqual([404, 'not_found']);
      const unauthenticated = await stack.request(`${API}?action=create-session`, json({ game_id: 101 }));
      expect([unauthenticated.status, unauthenticated.body.code]).toEqual([401, 'unauthenticated']);
    });

    test('routing refusals of the front carry code and request_id too; Unknown action lists the valid actions', async () => {
      const unknown = await stack.request(`${API}?action=create-token`, json({ game_id: 101 }));
      expect(unknown.status).toBe(400);
      expect(unknown.body).toEqual({
        success: false,
        error:
          'Unknown action; the valid actions are create-session, validate-session, consume-session, revoke-session, rotate-key, list-webhooks, create-webhook, update-webhook, delete-webhook, rotate-webhook-secret, list-webhook-deliveries, retry-webhook-delivery, test-webhook, recover-webhook, audit-log, usage, list-games, update-game, update-stream, list-orgs',
        code: 'unknown_action',
        param: 'action',
        request_id: unknown.headers.get('x-request-id'),
      });
      const notFound = await stack.request('/api/nothing');
      expect(notFound.body).toEqual({
        success: false,
        error: 'Not found',
        code: 'not_found',
        request_id: notFound.headers.get('x-request-id'),
      });
    });
  });

  describe('the right credential named', () => {
    test('a POST without ?action= with an API key: points at ?action=create-session, not at a bearer token alone', async () => {
      const reply = await stack.request(API, json({ game_id: 101 }, { 'x-api-key': stack.credentials.api_key }));
      expect(reply.status).toBe(401);
      expect(reply.body.error).toMatch(/creates an API key.*\?action=create-session/);
      expect(reply.body.error).not.toMatch(/^Missing bearer token/);
      expect(reply.headers.get('www-authenticate')).toMatch(/^Bearer realm=/);
    });

    test('an API key sent to an admin route is told it is not the credential there', async () => {
      const reply = await stack.request(`${API}?org_id=1`, { headers: { 'x-api-key': stack.credentials.api_key } });
      expect(reply.status).toBe(401);
      expect(reply.body.error).toBe("This operation takes an org admin's bearer token (Authorization header), not an API key");
    });

    test('an admin JWT beside an API key is still judged as the JWT', async () => {
      const reply = await stack.request(`${API}?org_id=1`, {
        headers: { authorization: await admin.bearer('acme-admin'), 'x-api-key': stack.credentials.api_key },
      });
      expect(reply.status).toBe(200);
    });

    test.each([
      ['POST', `${API}?action=create-session`, /^ApiKey realm=/],
      ['POST', `${API}?action=revoke-session`, /^ApiKey realm=/],
      ['POST', '/api/mcp', /^ApiKey realm=/],
      ['GET', `${API}?org_id=1`, /^Bearer realm=/],
      ['POST', API, /^Bearer realm=/],
      ['PATCH', API, /^Bearer realm=/],
      ['DELETE', `${API}?id=1&org_id=1`, /^Bearer realm=/],
      ['POST', `${API}?action=rotate-key`, /^Bearer realm=/],
      ['GET', `${API}?action=audit-log&org_id=1`, /^Bearer realm=/],
    ])('every 401 carries WWW-Authenticate: %s %s', async (method, path, challenge) => {
      const reply = await stack.request(path, {
        method,
        headers: { 'content-type': 'application/json' },
        ...(method === 'GET' || method === 'DELETE' ? {} : { body: '{}' }),
      });
      expect(reply.status).toBe(401);
      expect(reply.headers.get('www-authenticate')).toMatch(challenge);
      expect(reply.body.code).toBe('unauthenticated');
    });
  });

  describe('each ?action= operation at its own path (the OpenAPI paths)', () => {
    test('mint → validate → consume → revoke at /api/org-api-keys/<operation>, by the same functions', async () => {
      const key = { 'x-api-key': stack.credentials.api_key };
      const created = await stack.request(`${API}/create-session`, json({ game_id: 101 }, key));
      expect(created.status).toBe(200);
      const token = created.body.data.token as string;
      const valid = await stack.request(`${API}/validate-session?token=${token}`);
      expect([valid.status, valid.body.data.status]).toEqual([200, 'active']);
      const consumed = await stack.request(`${API}/consume-session`, json({ token }));
      expect([consumed.status, consumed.body.data.game_id]).toEqual([200, 101]);
      const other = (await stack.request(`${API}/create-session`, json({ game_id: 101 }, key))).body.data.token as string;
      const revoked = await stack.request(`${API}/revoke-session?action=revoke-session`, json({ token: other }, key));
      expect(revoked.status).toBe(200);
    });

    test('the own path takes its own method only (405 with Allow), and no other action', async () => {
      const wrongMethod = await stack.request(`${API}/create-session`);
      expect([wrongMethod.status, wrongMethod.headers.get('allow')]).toEqual([405, 'POST']);
      const otherAction = await stack.request(`${API}/create-session?action=revoke-session`, json({ game_id: 101 }));
      expect([otherAction.status, otherAction.body.code]).toEqual([400, 'unknown_action']);
      const keyAdmin = await stack.request(`${API}/list-keys?org_id=1`);
      expect(keyAdmin.status).toBe(404);
    });
  });
});
