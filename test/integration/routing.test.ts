/** Requests that match no operation: the error envelope with 404, 400 or 405 (with `Allow`), from the routes table and the error table. */
import { afterAll, beforeAll, describe, expect, test } from '@jest/globals';
import { startStack, type Stack } from '../support/local-stack.js';
import { API, failure } from '../support/sessions-api.js';

let stack: Stack;
beforeAll(async () => {
  stack = await startStack();
});
afterAll(() => stack.stop());

describe('routing', () => {
  test.each([
    ['GET', '/api/does-not-exist'],
    ['POST', '/api/org-api-keys/create-session/extra'],
    ['GET', '/api/org-api-keysx?action=validate-session'],
  ])('%s %s: 404 envelope', async (method, path) => {
    const reply = await stack.request(path, { method });
    expect(reply.status).toBe(404);
    expect(reply.body).toEqual(failure('Not found'));
    expect(reply.headers.get('content-type')).toContain('application/json');
  });

  test.each([
    ['GET', 'nope'],
    ['POST', 'create-token'],
    ['POST', 'CREATE-SESSION'],
    ['POST', 'create-session&action=revoke-session'],
  ])('%s with an unknown action (%s): 400 envelope', async (method, action) => {
    const reply = await stack.request(`${API}?action=${action}`, {
      method,
      headers: { 'content-type': 'application/json', 'x-api-key': stack.credentials.api_key },
      ...(method === 'POST' ? { body: '{"game_id":101}' } : {}),
    });
    expect(reply.status).toBe(400);
    expect(reply.body).toEqual(
      failure(
        'Unknown action; the valid actions are create-session, validate-session, consume-session, revoke-session, rotate-key, list-webhooks, create-webhook, update-webhook, delete-webhook, rotate-webhook-secret, list-webhook-deliveries, retry-webhook-delivery, test-webhook, recover-webhook, audit-log, usage, list-games, update-game, update-stream, list-orgs',
      ),
    );
  });

  test.each([
    ['GET', 'create-session'],
    ['PUT', 'create-session'],
    ['POST', 'validate-session'],
    ['DELETE', 'consume-session'],
    ['GET', 'revoke-session'],
  ])('%s ?action=%s: 405 envelope', async (method, action) => {
    const reply = await stack.request(`${API}?action=${action}`, { method });
    expect(reply.status).toBe(405);
    expect(reply.body).toEqual(failure('Method not allowed'));
    expect(reply.headers.get('allow')).toBe(action === 'validate-session' ? 'GET' : 'POST');
  });

  test('a trailing slash still reaches the operation', async () => {
    const reply = await stack.request(`${API}/?action=validate-session&token=not-a-uuid`);
    expect(reply.status).toBe(400);
    expect(reply.body.error).toContain('token');
  });
});

describe('HEAD on pages', () => {
  test('a page answers HEAD as its GET, without the body (a trailing slash too); an API operation does not', async () => {
    const get = await fetch(`${stack.baseUrl}/play/game/102`);
    const head = await fetch(`${stack.baseUrl}/play/game/102`, { method: 'HEAD' });
    expect([get.status, head.status]).toEqual([200, 200]);
    expect(head.headers.get('content-type')).toBe(get.headers.get('content-type'));
    expect(head.headers.get('content-security-policy')).toContain("default-src 'none'");
    expect(await head.text()).toBe('');
    expect(await get.text()).toContain('<title>');
    const api = await fetch(`${stack.baseUrl}${API}?action=validate-session&token=x`, { method: 'HEAD' });
    expect(api.status).toBe(405);
  });
});

describe('one address per page', () => {
  test.each(['GET', 'HEAD'])('%s of a page with a trailing slash: 301 to the address without it, the query kept', async (method) => {
    const reply = await fetch(`${stack.baseUrl}/play/game/102/?a=1&b=2`, { method, redirect: 'manual' });
    expect(reply.status).toBe(301);
    expect(reply.headers.get('location')).toBe('/play/game/102?a=1&b=2');
  });
});

describe('405 and Allow', () => {
  test.each([
    ['PUT', API, 'DELETE, GET, PATCH, POST'],
    ['GET', '/api/mcp', 'POST'],
    // Pages answer HEAD too.
    ['DELETE', '/play/game/101', 'GET, HEAD'],
  ])('%s %s: 405 with Allow listing the methods the address takes', async (method, path, allow) => {
    const reply = await stack.request(path, { method });
    expect(reply.status).toBe(405);
    expect(reply.body).toEqual(failure('Method not allowed'));
    expect(reply.headers.get('allow')).toBe(allow);
  });
});
