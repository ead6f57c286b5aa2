/**
 * How a thrown error is answered over HTTP: THE error table (`shared/platform/errors.ts`) gives the
 * status; the error gives the message and its headers. The JSON envelope, the HTML pages, the local
 * front and the edge rewrite all render through here.
 */
import type { APIGatewayProxyStructuredResultV2 } from 'aws-lambda';
import { codeOf, Conflict, DomainError, InvalidInput, Overloaded, RateLimited, statusOf } from '../errors.js';
import { REQUEST_ID_HEADER } from './caller.js';
import { jsonResponse } from './headers.js';

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

/** What an error becomes: its status, the message the client may see, and extra headers. */
interface ErrorOutcome {
  readonly status: number;
  readonly message: string;
  readonly headers: Record<string, string>;
}

/**
 * The one place an error is classified: a named error's status (from the error table), message and
 * headers; anything else a generic 500 whose message says nothing about the cause. The JSON
 * envelope and the HTML pages both render this.
 */
export function errorOutcome(error: unknown): ErrorOutcome {
  const named = namedError(error);
  if (!named) return { status: statusOf(error), message: 'Internal server error', headers: {} };
  return { status: statusOf(named), message: named.message, headers: headersOf(named) };
}

/**
 * The headers an error adds to its answer: when to retry. (A 405's `Allow` is added where 405s are
 * answered: routing, `routing-errors.ts`; no function throws one, so their bundles do without.)
 */
function headersOf(error: DomainError): Record<string, string> {
  if (error instanceof RateLimited) return { 'retry-after': String(error.retryAfterSeconds) };
  if (error instanceof Overloaded) return { 'retry-after': '1' };
  if (error instanceof Conflict && error.retryAfterSeconds !== undefined) return { 'retry-after': String(error.retryAfterSeconds) };
  return {};
}

/**
 * The one place an error becomes a JSON response: its outcome in the spec's `{success:false, error}`
 * envelope, with the fields a client programs against added beside them (docs/decisions.md#error-codes):
 * the table's stable `code` and the field at fault (`param`) when one is. `request_id` is added where
 * the request's id is known ({@link withRequestId}).
 */
export function errorResponse(error: unknown, headers: Record<string, string> = {}): APIGatewayProxyStructuredResultV2 {
  const outcome = errorOutcome(error);
  const named = namedError(error);
  return jsonResponse(
    outcome.status,
    { error: outcome.message, code: codeOf(named ?? error), param: named?.param },
    { ...headers, ...outcome.headers },
  );
}

/**
 * An answer with the request's id: the `x-request-id` header and, in an error envelope, the same id
 * as `request_id` (what a client quotes to support). A success, or a body that is no error envelope
 * (an HTML page), keeps its body.
 */
export function withRequestId(response: APIGatewayProxyStructuredResultV2, requestId: string): APIGatewayProxyStructuredResultV2 {
  const headers = { ...(response.headers as Record<string, string>), [REQUEST_ID_HEADER]: requestId };
  const body = response.body;
  if ((response.statusCode ?? 200) < 400 || !body?.startsWith('{"success":false')) return { ...response, headers };
  return { ...response, headers, body: JSON.stringify({ ...(JSON.parse(body) as object), request_id: requestId }) };
}
