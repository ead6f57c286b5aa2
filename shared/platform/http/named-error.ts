/**
 * What a thrown value is to a caller: a named error (a refusal, with its status from the error
 * table) or a failure. The answer (`answers.ts`) and the request's log line (`observability.ts`)
 * both ask, so it sits below both.
 */
import { DomainError, InvalidInput } from '../errors.js';

/** Middy's own HTTP errors (JSON parser), in the service's words; both are the spec's 400. */
const MIDDY_MESSAGES: Record<number, string> = {
  415: 'Content-Type must be application/json',
  422: 'Request body is not valid JSON',
};

/** A client error middy threw itself (its JSON parser: 415, 422; middy exposes client errors only); undefined for anything else. */
function middyStatus(error: unknown): number | undefined {
  const e = error as { statusCode?: number; expose?: boolean } | null;
  return typeof e?.statusCode === 'number' && e.expose ? e.statusCode : undefined;
}

/**
 * A thrown value as a named error: a domain error as it is; a client error of middy's (its JSON
 * parser) as `InvalidInput` in the service's words; undefined for anything else (a failure: 500).
 */
export function namedError(error: unknown): DomainError | undefined {
  if (error instanceof DomainError) return error;
  const middy = middyStatus(error);
  return middy === undefined ? undefined : new InvalidInput(MIDDY_MESSAGES[middy] ?? 'Bad request', { cause: error });
}
