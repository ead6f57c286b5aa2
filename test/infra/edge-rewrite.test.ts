/**
 * The CloudFront viewer-request function, run as CloudFront would: the generated source evaluated
 * in a fresh `node:vm` context, `handler(event)` called with viewer-request events. Its decisions
 * must equal the local front's (`matchRoute` + `routingErrors`) for every route of the table.
 */
import { describe, expect, test } from '@jest/globals';
import { runInNewContext } from 'node:vm';
import { EDGE_FUNCTION_MAX_BYTES, edgeRewriteSource } from '../../infra/edge-rewrite.js';
import { VIEWER_ADDRESS_HEADER, errorResponse, withRequestId } from '../../shared/platform/http/answers.js';
import { allowedMethods, routingError, routingErrors, canonicalPagePath, matchRoute, routes as routeTable } from '../../shared/routes.js';
import { API_PATH, originPath, type RouteDefinition } from '../../shared/platform/route.js';

/** THE routes table, seen as plain rows (optional `action`). */
const routes: readonly RouteDefinition[] = routeTable;

type EdgeResult =
  | { uri: string; method: string; querystring: Record<string, unknown> }
  | { statusCode: number; statusDescription: string; headers: Record<string, { value: string }>; body: { encoding: string; data: string } };

/** Compile a routes table's edge function and return its handler. */
function edgeHandler(table: readonly RouteDefinition[]): (event: unknown) => EdgeResult {
  const handler = runInNewContext(`${edgeRewriteSource(table)}\nhandler;`, {}, { timeout: 1000 }) as (event: unknown) => unknown;
  // Results come from another realm: a JSON round trip gives plain objects to compare.
  return (event) => JSON.parse(JSON.stringify(handler(event))) as EdgeResult;
}

type Query = Record<string, { value: string; multiValue?: { value: string }[] }>;

function viewerRequest(method: string, uri: string, querystring: Query = {}) {
  return {
    version: '1.0',
    context: { eventType: 'viewer-request', requestId: 'test' },
    viewer: { ip: '198.51.100.7' },
    request: { method, uri, querystring, headers: { host: { value: 'example.cloudfront.net' } }, cookies: {} },
  };
}

const withAction = (action: string, extra: Query = {}): Query => ({ ...extra, action: { value: action } });

/** A concrete request path for a route's path pattern (`{param}` segments filled in). */
const concretePath = (route: RouteDefinition) => route.path.replace(/\{[^}]+\}/g, '42');

/** What the local front decides for a request, in the edge function's terms. */
function expected(table: readonly RouteDefinition[], method: string, path: string, action: string | undefined) {
  const match = matchRoute(method, path, action, table);
  // A page's address with a trailing slash moves to its canonical one (301); anything else reaches
  // the origin on its canonical path (API Gateway's routes have no trailing slash).
  const canonical = match.kind === 'route' ? canonicalPagePath(method, path, match.route) : undefined;
  if (canonical !== undefined) return { statusCode: 301, location: canonical };
  if (match.kind === 'route')
    return { uri: originPath(match.route) === match.route.path ? path.replace(/\/+$/, '') : originPath(match.route) };
  return { statusCode: routingErrors[match.kind].status, error: routingErrors[match.kind].error };
}

function outcome(result: EdgeResult) {
  if ('uri' in result) return { uri: result.uri };
  // The path it moves to (the query it keeps: 'pages answer HEAD…' below).
  if (result.statusCode === 301) return { statusCode: 301, location: result.headers.location!.value.split('?')[0] };
  return { statusCode: result.statusCode, error: (JSON.parse(result.body.data) as { error: string }).error };
}

const handler = edgeHandler(routes);
const methods = [...new Set(routes.map((r) => r.method)), 'PUT', 'HEAD', 'OPTIONS'];
const actions = [...new Set(routes.flatMap((r) => (r.action ? [r.action] : [])))];

describe('every operation of the routes table', () => {
  test.each(routes.map((r) => [r.operation, r] as const))('%s reaches its origin path', (_op, route) => {
    const query = route.action ? withAction(route.action, { token: { value: 'abc' } }) : { org_id: { value: '1' } };
    const result = handler(viewerRequest(route.method, concretePath(route), query));
    expect(result).toMatchObject({
      method: route.method,
      // Multiplexed operations get their own path; others (e.g. `/play/game/{game_id}`) pass unchanged.
      uri: route.path === API_PATH ? originPath(route) : concretePath(route),
      // The query string reaches the function untouched (it reads `token`, `org_id`, ... from it).
      querystring: query,
    });
  });
});

describe('requests that match no operation are answered at the edge like the local front answers them', () => {
  test('an unknown action: 400 with the JSON envelope', () => {
    for (const method of methods) {
      const result = handler(viewerRequest(method, API_PATH, withAction('no-such-action')));
      expect(result).toEqual({
        statusCode: 400,
        statusDescription: routingErrors['unknown-action'].error,
        headers: {
          'content-type': { value: 'application/json; charset=utf-8' },
          'cache-control': { value: 'no-store' },
          'x-content-type-options': { value: 'nosniff' },
          'x-request-id': { value: 'test' },
        },
        body: {
          encoding: 'text',
          data: JSON.stringify({
            success: false,
            error: routingErrors['unknown-action'].error,
            code: 'unknown_action',
            param: 'action',
            request_id: 'test',
          }),
        },
      });
    }
  });

  test('a known action with the wrong method: 405', () => {
    for (const route of routes.filter((r) => r.action)) {
      for (const method of methods.filter((m) => !routes.some((r) => r.action === route.action && r.method === m))) {
        expect(outcome(handler(viewerRequest(method, API_PATH, withAction(route.action!))))).toEqual({
          statusCode: 405,
          error: routingErrors['method-not-allowed'].error,
        });
      }
    }
  });

  test('no action, for each method: the operation without action, or 405', () => {
    for (const method of methods) {
      const result = outcome(handler(viewerRequest(method, API_PATH)));
      expect(result).toEqual(expected(routes, method, API_PATH, undefined));
      const routed = routes.find((r) => r.path === API_PATH && !r.action && r.method === method);
      if (routed) expect(result).toEqual({ uri: originPath(routed) });
      else expect(result).toEqual({ statusCode: 405, error: routingErrors['method-not-allowed'].error });
    }
  });

  test('a path outside the table (or the origin path of an operation without ?action= called directly): 404', () => {
    // An `?action=` operation's origin path is public too (its own path, which OpenAPI gives).
    const internal = routes.filter((r) => r.path === API_PATH && !r.action).map(originPath);
    expect(internal.length).toBeGreaterThan(0);
    for (const uri of ['/', '/nope', `${API_PATH}/extra`, ...internal]) {
      expect(outcome(handler(viewerRequest('GET', uri)))).toEqual({ statusCode: 404, error: routingErrors['not-found'].error });
    }
  });
});

test('the edge decides exactly as matchRoute for every method, path and action', () => {
  const paths = [
    ...new Set([
      ...routes.map(concretePath),
      ...routes.map((r) => `${concretePath(r)}/`),
      ...routes.map(originPath),
      '/',
      '/unknown',
      '/play/game/',
    ]),
  ];
  let checked = 0;
  for (const method of methods) {
    for (const path of paths) {
      for (const action of [undefined, '', 'bogus', ...actions]) {
        const query = action === undefined ? {} : withAction(action);
        expect([method, path, action, outcome(handler(viewerRequest(method, path, query)))]).toEqual([
          method,
          path,
          action,
          expected(routes, method, path, action),
        ]);
        checked++;
      }
    }
  }
  expect(checked).toBeGreaterThan(routes.length * methods.length);
});

test('pages answer HEAD (passed on to their HEAD route); API operations do not', () => {
  expect(outcome(handler(viewerRequest('HEAD', '/play/game/101')))).toEqual({ uri: '/play/game/101' });
  // One address per page: with a trailing slash, 301 to it, the query kept as sent.
  const query = { session_token: { value: 'abc' }, x: { value: '1', multiValue: [{ value: '1' }, { value: '2' }] } };
  const moved = handler(viewerRequest('HEAD', '/play/game/101/', query)) as {
    statusCode: number;
    headers: Record<string, { value: string }>;
  };
  expect([moved.statusCode, moved.headers.location]).toEqual([301, { value: '/play/game/101?session_token=abc&x=1&x=2' }]);
  const validate = handler(viewerRequest('HEAD', API_PATH, withAction('validate-session')));
  expect(outcome(validate)).toMatchObject({ statusCode: 405 });
  const page = handler(viewerRequest('PUT', '/play/game/101')) as { headers: Record<string, { value: string }> };
  expect(page.headers.allow).toEqual({ value: 'GET, HEAD' });
});

test('the origin gets the viewer’s address from the edge, whatever the viewer sent in its place', () => {
  const event = viewerRequest('GET', '/play/game/101');
  (event.request.headers as Record<string, { value: string }>)[VIEWER_ADDRESS_HEADER] = { value: '10.0.0.1' };
  const result = handler(event) as { headers: Record<string, { value: string }> };
  expect(result.headers[VIEWER_ADDRESS_HEADER]).toEqual({ value: '198.51.100.7' });
});

test('every 405 at the edge carries Allow, listing what allowedMethods lists for the local front', () => {
  const paths = [...new Set([...routes.map(concretePath), '/api/mcp', '/api/openapi.json'])];
  let checked = 0;
  for (const method of methods) {
    for (const path of paths) {
      for (const action of [undefined, ...actions]) {
        const result = handler(viewerRequest(method, path, action === undefined ? {} : withAction(action)));
        if (!('statusCode' in result) || result.statusCode !== 405) continue;
        expect([method, path, action, result.headers.allow]).toEqual([
          method,
          path,
          action,
          { value: allowedMethods(path, action).join(', ') },
        ]);
        expect(result.headers.allow!.value).not.toBe('');
        checked++;
      }
    }
  }
  expect(checked).toBeGreaterThan(routes.length);
  expect(handler(viewerRequest('GET', API_PATH, withAction('create-session')))).toMatchObject({ headers: { allow: { value: 'POST' } } });
});

test('the edge answers exactly as the functions’ error renderer: the same headers, the same body', () => {
  const result = handler(viewerRequest('GET', '/nope'));
  const rendered = withRequestId(errorResponse(routingError('not-found')), 'test');
  expect(result).toEqual({
    statusCode: rendered.statusCode,
    statusDescription: 'Not found',
    headers: Object.fromEntries(Object.entries(rendered.headers!).map(([name, value]) => [name, { value: String(value) }])),
    body: { encoding: 'text', data: rendered.body },
  });
});

test('a repeated action is joined with "," as the local front joins it, and values are URL-decoded', () => {
  const route = routes.find((r) => r.action)!;
  const repeated = {
    action: { value: route.action!, multiValue: [{ value: route.action! }, { value: route.action! }] },
  };
  expect(outcome(handler(viewerRequest(route.method, API_PATH, repeated)))).toEqual(
    expected(routes, route.method, API_PATH, `${route.action},${route.action}`),
  );
  const encoded = withAction(encodeURIComponent(route.action!).replace(/-/g, '%2D'));
  expect(outcome(handler(viewerRequest(route.method, API_PATH, encoded)))).toEqual({ uri: originPath(route) });
});

test('any table: parameter paths pass through, multiplexed paths are rewritten, empty parameters do not match', () => {
  const table: RouteDefinition[] = [
    {
      operation: 'mcp',
      function: 'mcp',
      data: {},
      parts: [],
      method: 'POST',
      path: '/api/mcp',
      auth: 'apiKey',
      capacity: 'key',
      summary: 'MCP',
    },
    {
      operation: 'game',
      function: 'page',
      data: {},
      parts: [],
      method: 'GET',
      path: '/play/game/{id}',
      auth: 'none',
      capacity: 'play',
      summary: 'page',
    },
    {
      operation: 'stream',
      function: 'page',
      data: {},
      parts: [],
      method: 'GET',
      path: '/stream/{org}/{id}',
      auth: 'none',
      capacity: 'play',
      summary: 'page',
    },
    {
      operation: 'ping',
      function: 'ping',
      data: {},
      parts: [],
      method: 'GET',
      path: API_PATH,
      action: 'ping',
      auth: 'none',
      capacity: 'meta',
      summary: 'ping',
    },
  ];
  const custom = edgeHandler(table);
  expect(outcome(custom(viewerRequest('POST', '/api/mcp')))).toEqual({ uri: '/api/mcp' });
  expect(outcome(custom(viewerRequest('GET', '/play/game/17')))).toEqual({ uri: '/play/game/17' });
  expect(outcome(custom(viewerRequest('GET', '/stream/acme/201')))).toEqual({ uri: '/stream/acme/201' });
  expect(outcome(custom(viewerRequest('GET', '/play/game/')))).toEqual({ statusCode: 404, error: 'Not found' });
  expect(outcome(custom(viewerRequest('GET', '/stream//201')))).toEqual({ statusCode: 404, error: 'Not found' });
  expect(outcome(custom(viewerRequest('GET', '/api/mcp')))).toEqual({ statusCode: 405, error: 'Method not allowed' });
  expect(outcome(custom(viewerRequest('GET', API_PATH, withAction('ping'))))).toEqual({ uri: `${API_PATH}/ping` });
});

test('the generated code fits CloudFront’s function size limit', () => {
  expect(Buffer.byteLength(edgeRewriteSource(routes))).toBeLessThan(EDGE_FUNCTION_MAX_BYTES);
});
