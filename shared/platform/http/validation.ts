import { safeParse } from 'zod/mini';
import type * as z from 'zod/v4/core';
import type { APIGatewayProxyEventV2 } from 'aws-lambda';
import { InvalidInput } from '../errors.js';
import type { RouteDefinition } from '../route.js';
import { isFieldName } from '../schema-locale.js';

/**
 * Parse input with a zod schema; a failure is a 400 whose message names the field and says in plain
 * words what is wrong with it (`external_ref: must be at most 255 characters`, `unknown field
 * gameId`; the words: `shared/platform/schema-locale.ts`), with that field as the error's `param`. Any zod 4
 * schema, classic or mini: the runtime schemas are zod/mini.
 */
export function parseWith<S extends z.$ZodType>(schema: S, input: unknown, where: 'body' | 'query'): z.output<S> {
  const result = safeParse(schema, input);
  if (result.success) return result.data;
  const issue = result.error.issues[0]!;
  const cause = result.error;
  // An unknown field is named by itself: the message and the param are that field.
  if (issue.code === 'unrecognized_keys') {
    const named = issue.keys.find(isFieldName);
    return refuse(issue.message, named === undefined ? undefined : [...issue.path, named].map(String).join('.'), cause);
  }
  const field = issue.path.map(String).join('.');
  // zod reports a missing field as a wrong type; only a field really absent is "required".
  const message = issue.code === 'invalid_type' && valueAt(input, issue.path) === undefined ? 'is required' : issue.message;
  if (field) return refuse(`${field}: ${message}`, field, cause);
  return refuse(where === 'body' && issue.code === 'invalid_type' ? 'Request body must be a JSON object' : message, undefined, cause);
}

function refuse(message: string, param: string | undefined, cause: unknown): never {
  throw new InvalidInput(message, { cause, ...(param === undefined ? {} : { param }) });
}

/** The value at a path of the input (undefined where the path leaves it). */
function valueAt(input: unknown, path: readonly PropertyKey[]): unknown {
  let value = input;
  for (const key of path) {
    if (value === null || typeof value !== 'object') return undefined;
    value = (value as Record<PropertyKey, unknown>)[key];
  }
  return value;
}

type Out<S> = S extends z.$ZodType ? z.output<S> : undefined;
/** The validated body and query of an operation's request. */
export type RequestInput<D extends RouteDefinition> = { readonly body: Out<D['body']>; readonly query: Out<D['query']> };

/** Validate a request's body and query with its operation's schemas (400 naming the field). */
export function requestInput<D extends RouteDefinition>(operation: D, event: APIGatewayProxyEventV2): RequestInput<D> {
  const body = operation.body ? parseWith(operation.body, event.body, 'body') : undefined;
  const query = operation.query ? parseWith(operation.query, event.queryStringParameters ?? {}, 'query') : undefined;
  return { body, query } as RequestInput<D>;
}
