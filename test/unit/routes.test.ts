import { describe, expect, test } from '@jest/globals';
import { routingErrors, matchRoute, routes } from '../../shared/routes.js';
import { API_PATH, originPath, type RouteDefinition } from '../../shared/platform/route.js';

const route = (operation: string, method: RouteDefinition['method'], path: string, action?: string): RouteDefinition => ({
  operation,
  function: operation,
  data: {},
  parts: [],
  method,
  path,
  ...(action ? { action } : {}),
  auth: 'none',
  capacity: 'token',
  summary: operation,
});

describe('matchRoute on the service’s routes', () => {
  test.each([
    ['POST', 'create-session'],
    ['GET', 'validate-session'],
    ['POST', 'consume-session'],
    ['POST', 'revoke-session'],
  ])('%s ?action=%s reaches its operation', (method, action) => {
    const match = matchRoute(method, API_PATH, action);
    expect(match.kind).toBe('route');
    if (match.kind === 'route') {
      expect(match.route.operation).toBe(action);
      expect(match.params).toEqual({});
    }
  });

  test('a trailing slash is ignored', () => {
    expect(matchRoute('GET', `${API_PATH}/`, 'validate-session').kind).toBe('route');
  });

  test('an unknown action', () => {
    expect(matchRoute('POST', API_PATH, 'mint-session')).toEqual({ kind: 'unknown-action' });
    expect(matchRoute('GET', API_PATH, 'Validate-Session')).toEqual({ kind: 'unknown-action' });
  });

  test('a known action with the wrong method', () => {
    expect(matchRoute('GET', API_PATH, 'create-session')).toEqual({ kind: 'method-not-allowed' });
    expect(matchRoute('POST', API_PATH, 'validate-session')).toEqual({ kind: 'method-not-allowed' });
    expect(matchRoute('PUT', API_PATH, 'consume-session')).toEqual({ kind: 'method-not-allowed' });
  });

  test('a path of no route', () => {
    expect(matchRoute('GET', '/api/nothing', undefined)).toEqual({ kind: 'not-found' });
    expect(matchRoute('POST', `${API_PATH}/list-keys`, undefined)).toEqual({ kind: 'not-found' });
    expect(matchRoute('GET', '/', undefined)).toEqual({ kind: 'not-found' });
  });

  test('an ?action= operation also at its own path, with no action or its own', () => {
    const createSession = routes.find((r) => r.operation === 'create-session')!;
    for (const action of [undefined, 'create-session']) {
      expect(matchRoute('POST', `${API_PATH}/create-session`, action)).toEqual({ kind: 'route', route: createSession, params: {} });
    }
    expect(matchRoute('POST', `${API_PATH}/create-session`, 'revoke-session')).toEqual({ kind: 'unknown-action' });
    expect(matchRoute('GET', `${API_PATH}/create-session`, undefined)).toEqual({ kind: 'method-not-allowed' });
  });

  test('every operation is unique, and every action-multiplexed one gets its own origin path', () => {
    const operations = routes.map((r) => r.operation);
    expect(new Set(operations).size).toBe(operations.length);
    expect(originPath(routes.find((r) => r.operation === 'create-session')!)).toBe(`${API_PATH}/create-session`);
  });

  test('routing errors map to 404, 400 and 405', () => {
    expect(routingErrors).toEqual({
      'not-found': { status: 404, error: 'Not found' },
      'unknown-action': {
        status: 400,
        error:
          'Unknown action; the valid actions are create-session, validate-session, consume-session, revoke-session, rotate-key, list-webhooks, create-webhook, update-webhook, delete-webhook, rotate-webhook-secret, list-webhook-deliveries, retry-webhook-delivery, test-webhook, recover-webhook, audit-log, usage, list-games, update-game, update-stream, list-orgs',
      },
      'method-not-allowed': { status: 405, error: 'Method not allowed' },
    });
  });
});

describe('matchRoute on a custom table', () => {
  const table = [
    route('list', 'GET', '/things'),
    route('create', 'POST', '/things'),
    route('special', 'POST', '/things', 'special'),
    route('play', 'GET', '/play/game/{id}'),
  ];

  test('without an action, the routes without one match by method', () => {
    const match = matchRoute('GET', '/things', undefined, table);
    expect(match.kind === 'route' && match.route.operation).toBe('list');
    const empty = matchRoute('POST', '/things', '', table);
    expect(empty.kind === 'route' && empty.route.operation).toBe('create');
    expect(matchRoute('DELETE', '/things', undefined, table)).toEqual({ kind: 'method-not-allowed' });
  });

  test('an action selects its route; an unknown one is reported as such', () => {
    const match = matchRoute('POST', '/things', 'special', table);
    expect(match.kind === 'route' && match.route.operation).toBe('special');
    expect(matchRoute('GET', '/things', 'special', table)).toEqual({ kind: 'method-not-allowed' });
    expect(matchRoute('GET', '/things', 'other', table)).toEqual({ kind: 'unknown-action' });
  });

  test('path parameters are captured and decoded; an empty one does not match', () => {
    const match = matchRoute('GET', '/play/game/10%201', undefined, table);
    expect(match).toEqual({ kind: 'route', route: table[3], params: { id: '10 1' } });
    expect(matchRoute('GET', '/play/game/', undefined, table)).toEqual({ kind: 'not-found' });
    expect(matchRoute('GET', '/play/game/1/2', undefined, table)).toEqual({ kind: 'not-found' });
  });

  test('a path outside the API keeps its own origin path', () => {
    expect(originPath(table[3]!)).toBe('/play/game/{id}');
  });
});
