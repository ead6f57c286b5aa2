import { safeParse, type $ZodType, type output } from 'zod/v4/core';
import { InvalidInput } from '../domain/errors.js';

/**
 * Parse input with a zod schema; a failure is a 400 whose message names the field and the rule
 * (e.g. `external_ref: Too big: expected string to have <=255 characters`).
 */
export function parseWith<S extends $ZodType>(schema: S, input: unknown, where: 'body' | 'query'): output<S> {
  const result = safeParse(schema, input);
  if (result.success) return result.data;
  const issue = result.error.issues[0]!;
  const field = issue.path.map(String).join('.');
  const message = issue.code === 'invalid_type' && issue.input === undefined ? 'is required' : issue.message;
  throw new InvalidInput(
    field ? `${field}: ${message}` : where === 'body' && issue.code === 'invalid_type' ? 'Request body must be a JSON object' : message,
    {
      cause: result.error,
    },
  );
}
