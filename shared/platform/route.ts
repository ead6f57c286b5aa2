/**
 * What one operation of the public interface is, declared once: its public method, path and
 * `?action=`, the credential it takes, the Lambda function serving it, the DynamoDB actions it may
 * perform, the parts of the services it builds (hence its environment), its request and response
 * schemas and its summary. Each operation's declaration lives in
 * a module of its own (this folder), so that a function's bundle carries only its own; THE routes
 * table (`shared/routes.ts`) lists them all for the CDK stack, IAM, the edge rewrite, the local front
 * and the OpenAPI document.
 */
import type { APIGatewayProxyStructuredResultV2 } from 'aws-lambda';
import type * as z from 'zod/v4/core';
import type { EnvPart } from './env-parts.js';
import type { TableName } from '../tables.js';
import type { QueueName } from './worker.js';

/** The credential an operation takes: none, an API key (partners' servers, MCP clients) or an org admin's bearer JWT. */
export type AuthKind = 'none' | 'apiKey' | 'bearer';
/**
 * Which budget of the capacity plan (`infra/capacity.ts`, docs/deploy.md "Capacity") a route's
 * traffic draws on at the edge: `key` the API-key calls partners are metered for, `token` the
 * anonymous token reads and consumptions, `play` the browser's pages and `/play/session`, `admin`
 * the org admins' key management, `meta` documents about the service itself.
 */
export type CapacityClass = 'key' | 'token' | 'play' | 'admin' | 'meta';
/** The HTTP methods of the public interface. */
export type HttpMethod = 'GET' | 'POST' | 'PATCH' | 'DELETE';

/** DynamoDB actions a function performs, per logical table (feeds least-privilege IAM in CDK). */
export type DataAccess = Partial<Record<TableName, readonly DynamoAction[]>>;
/**
 * A DynamoDB action, as IAM names it (`dynamodb:<action>`). A transaction (`TransactWriteItems`) is
 * allowed per item: `PutItem` for its puts, `ConditionCheckItem` for its checks.
 */
export type DynamoAction =
  'GetItem' | 'PutItem' | 'UpdateItem' | 'DeleteItem' | 'ConditionCheckItem' | 'Query' | 'BatchGetItem' | 'BatchWriteItem';

/** Which calls of an operation are idempotent under an `Idempotency-Key`, and what a repeat must match. */
export interface IdempotentCall {
  /** The operation or tool the key belongs to: keys never collide across them. */
  readonly namespace: string;
  /** What a repeat must carry again (compared by hash). */
  readonly payload: unknown;
  /** The audit action of a call whose claim is refused (409, 422): the operation's name unless given (an MCP tool's). */
  readonly action?: string;
  /** Adapt a stored answer to the repeat (e.g. the JSON-RPC id of the new request). */
  readonly replay?: (stored: APIGatewayProxyStructuredResultV2) => APIGatewayProxyStructuredResultV2;
}

/** One operation of the public interface. */
export interface RouteDefinition {
  /** Operation name (unique); the OpenAPI operationId and the `?action=` target. */
  readonly operation: string;
  /**
   * The Lambda serving it: the file `functions/<function>.ts`, named after the operation unless
   * several operations share it (the play pages).
   */
  readonly function: string;
  /** Every DynamoDB action the function may perform; the union over its routes is its IAM policy. */
  readonly data: DataAccess;
  /** The queues its function sends to (SQS send permission and the queue's URL, as for a worker's `sendsTo`). */
  readonly sendsTo?: readonly QueueName[];
  /**
   * The parts of the services its function builds, besides `http` (which every function has): the
   * union over a function's routes decides its environment (`shared/platform/env-parts.ts`), so a variable
   * reaches only the functions whose code reads it.
   */
  readonly parts: readonly Exclude<EnvPart, 'http'>[];
  readonly method: HttpMethod;
  /** Public path (as clients call it). `{name}` marks a path parameter. */
  readonly path: string;
  /** Value of the `?action=` query parameter that selects this operation, when the path is shared. */
  readonly action?: string;
  readonly auth: AuthKind;
  /** The edge throttle budget it draws on (one per route, so no route goes unthrottled). */
  readonly capacity: CapacityClass;
  /** One line for docs and the OpenAPI summary. */
  readonly summary: string;
  /** Schema of the JSON body; when set, a body is required, parsed and validated with it. */
  readonly body?: z.$ZodType;
  /** Schema of the query parameters (strings on the wire), validated with it. */
  readonly query?: z.$ZodObject;
  /**
   * `data` of the success envelope, or the whole answer when {@link reply} says so. Operations
   * without one (the HTML pages) are documented by their summary alone.
   */
  readonly response?: z.$ZodType;
  /**
   * How a success is answered: in the `{success: true, data}` envelope (absent), as a JSON
   * `document` of its own (cacheable), or as the `transport`'s own HTTP result (MCP).
   */
  readonly reply?: 'document' | 'transport';
  /**
   * Refusals answered as HTML pages although the success is JSON: an operation of the page
   * function (`shared/platform/http/page-pipeline.ts` renders every refusal as a page), `/play/session`.
   */
  readonly refusals?: 'html';
  /** Request headers beyond the credential (documented). */
  readonly headers?: z.$ZodObject;
  /** Headers of a success answer beyond the rate-limit ones (documented). */
  readonly responseHeaders?: z.$ZodObject;
  /**
   * Statuses the operation answers beyond those its credential, its input, its path parameters and
   * its data access imply (documented; the implied ones: `errorResponses` in `infra/openapi-document.ts`).
   */
  readonly errors?: readonly number[];
  /**
   * An `Idempotency-Key` header makes the call idempotent per API key (key-authenticated operations):
   * `true` for every call (the validated body is what a repeat must match), or a function choosing
   * the calls it applies to (undefined: the header is ignored) and what a repeat must match.
   */
  readonly idempotent?: true | ((body: never) => IdempotentCall | undefined);
  /**
   * A call of a key that proved valid in this container runs ahead of its key's read: its metered
   * stage (count, speculative write, audit record) and its `Idempotency-Key` claim go out beside
   * the read, and what the read says then decides (`shared/keys/known-keys.ts`). `true` for every
   * call, or a function choosing the calls it applies to.
   */
  readonly ahead?: true | ((body: never) => boolean);
}

/**
 * What a route's handler answers with: its response schema's output, so that the compiler holds
 * every answer against the schema the OpenAPI document (and every generated client) is made from.
 */
export type Answer<D extends RouteDefinition> = D['reply'] extends 'transport'
  ? APIGatewayProxyStructuredResultV2
  : D['response'] extends z.$ZodType
    ? Frozen<z.output<D['response']>>
    : unknown;

/** A value read-only all the way down: an answer is built, never changed, so read-only arrays satisfy it too. */
export type Frozen<T> = T extends (infer E)[] ? readonly Frozen<E>[] : T extends object ? { readonly [K in keyof T]: Frozen<T[K]> } : T;

/** Declare an operation (keeps its literal types: the bundle's input types follow its `auth` and schemas). */
export function defineOperation<const D extends RouteDefinition>(definition: D): D {
  return definition;
}

/** Version of the public interface (spec: Versioning): the OpenAPI `info.version`, the MCP server's, the health check's. */
export const API_VERSION = '1.0.0';

/** The shared path that multiplexes operations with `?action=`. */
export const API_PATH = '/api/org-api-keys';

/**
 * The path API Gateway serves an operation on. Operations multiplexed on {@link API_PATH} by
 * `?action=` (or by method alone) get a path segment of their own, because API Gateway cannot
 * route on a query parameter; the edge rewrite and the local front map public requests onto it.
 */
export function originPath(route: Pick<RouteDefinition, 'path' | 'operation'>): string {
  return route.path === API_PATH ? `${API_PATH}/${route.operation}` : route.path;
}

/** A public form of an operation's address: a path, and the `?action=` value it takes there (none: absent). */
export interface PublicForm {
  readonly path: string;
  readonly action: string | undefined;
}

/**
 * The addresses a client may call an operation at: its path (with its `?action=`), and for a
 * `?action=` operation also its own path (`/api/org-api-keys/create-session`, its origin path),
 * with no `?action=` or its own. The `?action=` form is the spec's contract; the own path is the
 * one the OpenAPI document gives, since OpenAPI paths cannot carry a query (docs/decisions.md#interface-description).
 */
export function publicForms(route: Pick<RouteDefinition, 'path' | 'operation' | 'action'>): readonly PublicForm[] {
  const main = { path: route.path, action: route.action };
  if (!route.action) return [main];
  const own = originPath(route);
  return [main, { path: own, action: undefined }, { path: own, action: route.action }];
}
