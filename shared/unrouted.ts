/**
 * The refusal of a request that matches no operation of the routes table, as a named error of THE
 * error table, and its answer: the local front sends it, and the edge rewrite embeds it.
 */
import type { APIGatewayProxyStructuredResultV2 } from 'aws-lambda';
import { MethodNotAllowed, NotFound, statusOf, UnknownAction, type DomainError } from './platform/errors.js';
import type { RouteDefinition } from './platform/route.js';
import { matchRoute, routes, type RouteMatch } from './routes.js';
import { errorResponse } from './platform/http/answers.js';

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
