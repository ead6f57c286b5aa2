/**
 * THE routes table: every operation the service exposes, each declared once in its own module of
 * its feature's `routes/` folder (public method, path and action, credential, function, data
 * access, schemas, summary). The local front, the CDK stack (one function per distinct `function`,
 * one API route and IAM from `data`), the CloudFront rewrite and the OpenAPI generator all read this
 * list; a function's bundle imports only its own operation's module. Adding an operation is adding
 * its module here, its function file and its domain code.
 *
 * Every function file is named after its operation, except `play-page`, which serves the six
 * page operations (one bundle, one play domain).
 *
 * Here too is what the table answers a request that matches none of its operations (404, 400
 * unknown action, 405): the local front sends it, and the edge rewrite embeds it. It lives beside
 * the table it is the other side of, not in a file of its own.
 */
import type { APIGatewayProxyStructuredResultV2 } from 'aws-lambda';
import { auditLog } from './usage/index.js';
import { consumeSession } from './sessions/index.js';
import { createKey } from './keys/index.js';
import { createSession } from './sessions/index.js';
import { deleteKey } from './keys/index.js';
import { health } from './meta/index.js';
import { listGames } from './catalog/index.js';
import { listKeys } from './keys/index.js';
import { listOrgs } from './catalog/index.js';
import { mcp } from './mcp/index.js';
import { openapi } from './meta/index.js';
import { publicForms, type RouteDefinition } from './platform/route.js';
import { MethodNotAllowed, NotFound, statusOf, UnknownAction, type DomainError } from './platform/errors.js';
import { errorResponse } from './platform/http/answers.js';
import { playPageOperations } from './play/index.js';
import { revokeSession } from './sessions/index.js';
import { rotateKey } from './keys/index.js';
import { updateGame } from './catalog/index.js';
import { updateKey } from './keys/index.js';
import { updateStream } from './catalog/index.js';
import { usage } from './usage/index.js';
import { validateSession } from './sessions/index.js';
import { createWebhook, deleteWebhook, listWebhooks, rotateWebhookSecret, updateWebhook } from './webhooks/index.js';
import { listWebhookDeliveries, recoverWebhook, retryWebhookDelivery, testWebhook } from './webhooks/index.js';

/** Every operation of the service, in the order the edge rewrite tries them and OpenAPI lists them. */
export const routes = [
  createSession,
  validateSession,
  consumeSession,
  revokeSession,
  mcp,
  listKeys,
  createKey,
  updateKey,
  deleteKey,
  rotateKey,
  listWebhooks,
  createWebhook,
  updateWebhook,
  deleteWebhook,
  rotateWebhookSecret,
  listWebhookDeliveries,
  retryWebhookDelivery,
  testWebhook,
  recoverWebhook,
  auditLog,
  usage,
  listGames,
  updateGame,
  updateStream,
  listOrgs,
  openapi,
  health,
  ...playPageOperations,
] as const satisfies readonly RouteDefinition[];

/**
 * Whether a route answers HEAD like its GET, without the body: the pages people open (a browser's
 * or a link checker's HEAD). API operations do not: a HEAD of validate-session would be a call.
 */
export function answersHead(route: Pick<RouteDefinition, 'method' | 'capacity'>): boolean {
  return route.method === 'GET' && route.capacity === 'play';
}

/**
 * Where a page's address with a trailing slash moves to (301): the canonical one, without it, for
 * the GET or HEAD of a page (one address per page for browsers and caches). Undefined otherwise:
 * API operations are served on either form (a client's POST does not survive every redirect).
 */
export function canonicalPagePath(method: string, path: string, route: RouteDefinition): string | undefined {
  if (!answersHead(route) || (method !== 'GET' && method !== 'HEAD') || !/.\/+$/.test(path)) return undefined;
  return path.replace(/\/+$/, '');
}

/** Outcome of matching a public request against the routes table. */
export type RouteMatch =
  | { readonly kind: 'route'; readonly route: RouteDefinition; readonly params: Record<string, string> }
  | { readonly kind: 'unknown-action' | 'method-not-allowed' | 'not-found' };

/**
 * Match a public request (method, path, `action` query value) to its operation. This is the rule
 * the edge rewrite implements in CloudFront and the local front applies directly.
 */
export function matchRoute(
  method: string,
  path: string,
  action: string | undefined,
  table: readonly RouteDefinition[] = routes,
): RouteMatch {
  const onPath = table.flatMap((route) =>
    publicForms(route).flatMap((form) => {
      const params = matchPath(form.path, path);
      return params ? [{ route, params, form }] : [];
    }),
  );
  if (onPath.length === 0) return { kind: 'not-found' };
  const forAction = onPath.filter(({ form }) => form.action === (action || undefined));
  const hit = forAction.find(({ route }) => route.method === method || (method === 'HEAD' && answersHead(route)));
  if (hit) return { kind: 'route', route: hit.route, params: hit.params };
  return action && forAction.length === 0 ? { kind: 'unknown-action' } : { kind: 'method-not-allowed' };
}

function matchPath(pattern: string, path: string): Record<string, string> | undefined {
  const want = pattern.split('/');
  const got = path.replace(/\/+$/, '').split('/');
  if (want.length !== got.length) return undefined;
  const params: Record<string, string> = {};
  for (let i = 0; i < want.length; i++) {
    const segment = want[i]!;
    const value = got[i]!;
    if (segment.startsWith('{') && segment.endsWith('}')) {
      const decoded = value ? decodePathSegment(value) : undefined;
      if (decoded === undefined) return undefined;
      params[segment.slice(1, -1)] = decoded;
    } else if (segment !== value) {
      return undefined;
    }
  }
  return params;
}

/** A percent-encoded path segment, decoded; undefined when its escapes are malformed (it names nothing: 404). */
function decodePathSegment(value: string): string | undefined {
  try {
    return decodeURIComponent(value);
  } catch {
    return undefined;
  }
}

// --- A request no operation matches

/** The `?action=` values the routes table takes (listed by an "Unknown action" answer). */
const ACTIONS = routes.flatMap((route) => ('action' in route && route.action ? [route.action] : []));

/** Why a request matches no operation. */
export type RoutingRefusal = Exclude<RouteMatch['kind'], 'route'>;

/** The error a routing refusal is; `allow` lists the methods the address takes (405 only). */
export function routingError(refusal: RoutingRefusal, allow: readonly string[] = []): DomainError {
  switch (refusal) {
    case 'not-found':
      return new NotFound('Not found');
    case 'unknown-action':
      return new UnknownAction(ACTIONS.join(', '));
    case 'method-not-allowed':
      return new MethodNotAllowed(allow);
  }
}

/**
 * The answer to a routing refusal: the error's, as every function renders it (`errorResponse`),
 * and for a 405 the `Allow` header RFC 9110 requires, listing the methods the address takes.
 */
export function routingResponse(refusal: RoutingRefusal, allow: readonly string[] = []): APIGatewayProxyStructuredResultV2 {
  const error = routingError(refusal, allow);
  return errorResponse(error, error instanceof MethodNotAllowed ? { allow: error.allow.join(', ') } : {});
}

/**
 * The methods a public path (and `?action=` value) takes: those `matchRoute` routes, sorted, as
 * a 405's `Allow` lists them (the edge rewrite computes the same list the same way).
 */
export function allowedMethods(path: string, action: string | undefined, table: readonly RouteDefinition[] = routes): string[] {
  const methods = [...new Set([...table.map((route) => route.method), 'HEAD'])];
  return methods.filter((method) => matchRoute(method, path, action, table).kind === 'route').sort();
}

const statusAndMessage = (error: DomainError) => ({ status: statusOf(error), error: error.message });

/** Each routing refusal's status and message, as the error table and {@link routingError} make them. */
export const routingErrors = {
  'not-found': statusAndMessage(routingError('not-found')),
  'unknown-action': statusAndMessage(routingError('unknown-action')),
  'method-not-allowed': statusAndMessage(routingError('method-not-allowed')),
} as const satisfies Record<RoutingRefusal, { status: number; error: string }>;
