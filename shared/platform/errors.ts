/**
 * THE refusals of the service and THE table that maps them. Code throws a named error; every
 * answer reads its status from {@link errorStatus} below: the JSON envelope and the HTML pages
 * (`shared/platform/http/answers.ts`), the play pages' refusals (`play.ts`), MCP tool errors
 * (`shared/mcp/server.ts`), routing in the local front and the CloudFront edge
 * (`shared/routes.ts`), and the audit log. Messages are meant for the client; anything
 * internal goes in `cause`, which is logged and never sent. A 5xx error's message is fixed by its
 * class (no caller's words), and anything else thrown answers a generic 500.
 */
export abstract class DomainError extends Error {
  abstract override readonly name: DomainErrorName;
  /** The request field at fault, when one is (answered as `param`). */
  readonly param?: string;
  constructor(message: string, options?: RefusalOptions) {
    super(message, options);
    if (options?.param !== undefined) this.param = options.param;
  }
}

/** What a refusal may carry besides its message: the internal `cause` (logged, never sent) and the field at fault. */
export interface RefusalOptions {
  readonly cause?: unknown;
  readonly param?: string;
}

/** A parameter is missing or invalid (400). */
export class InvalidInput extends DomainError {
  readonly name = 'InvalidInput';
}
/** The body is larger than the service accepts (413). */
export class PayloadTooLarge extends DomainError {
  readonly name = 'PayloadTooLarge';
}
/** The query string is longer than the service reads (414). */
export class UriTooLong extends DomainError {
  readonly name = 'UriTooLong';
}
/** Missing, malformed, unknown, revoked or expired credential (401). */
export class Unauthenticated extends DomainError {
  readonly name = 'Unauthenticated';
}
/** The organization's tier does not include the API (403). */
export class TierRequired extends DomainError {
  readonly name = 'TierRequired';
  constructor(options?: { cause?: unknown }) {
    super('Business tier or higher required', options);
  }
}
/** The caller may not act on this organization (403). */
export class Forbidden extends DomainError {
  readonly name = 'Forbidden';
}
/** The game or stream lies outside the key's scope (403). */
export class OutOfScope extends DomainError {
  readonly name = 'OutOfScope';
}
/**
 * The token is bound to a player (`player_ref` at create-session) and the consumption names another
 * or none (403): the token stays active for the consumption that names its player.
 */
export class PlayerMismatch extends DomainError {
  readonly name = 'PlayerMismatch';
  constructor(message = 'This session token is bound to another player', options?: { cause?: unknown }) {
    super(message, options);
  }
}
/** The addressed record does not exist for this caller (404). */
export class NotFound extends DomainError {
  readonly name = 'NotFound';
}
/** The `?action=` query parameter names no operation on this path (400); the message lists those it takes. */
export class UnknownAction extends DomainError {
  readonly name = 'UnknownAction';
  /** @param valid the actions the path takes, listed as the message gives them */
  constructor(valid: string, options?: { cause?: unknown }) {
    super(`Unknown action; the valid actions are ${valid}`, { ...options, param: 'action' });
  }
}
/** The path (and action) exists but not for this method (405); `allow` lists the methods it takes (`Allow`). */
export class MethodNotAllowed extends DomainError {
  readonly name = 'MethodNotAllowed';
  constructor(
    readonly allow: readonly string[],
    options?: { cause?: unknown },
  ) {
    super('Method not allowed', options);
  }
}
/**
 * The request conflicts with the current state (409): a retry with the same `Idempotency-Key` while
 * the first is still running, or a key changed by someone else meanwhile. `retryAfterSeconds`, when
 * set, becomes `Retry-After`.
 */
export class Conflict extends DomainError {
  readonly name = 'Conflict';
  constructor(
    message: string,
    readonly retryAfterSeconds?: number,
    options?: { cause?: unknown },
  ) {
    super(message, options);
  }
}
/**
 * A webhook delivery already has an attempt due or under way (409): a retry by hand would make no
 * attempt of its own, so it is refused rather than answered as if it had.
 */
export class DeliveryAttemptPending extends DomainError {
  readonly name = 'DeliveryAttemptPending';
}
/** The request is well-formed but cannot be processed as sent (422): an `Idempotency-Key` reused with another body. */
export class Unprocessable extends DomainError {
  readonly name = 'Unprocessable';
}
/** The token cannot be used: unknown, consumed, expired or revoked (410). */
export class TokenGone extends DomainError {
  readonly name = 'TokenGone';
  constructor(options?: { cause?: unknown }) {
    super('Session is invalid, already consumed, or expired', options);
  }
}
/** A rate-limit window of the key is exhausted (429). */
export class RateLimited extends DomainError {
  readonly name = 'RateLimited';
  constructor(
    readonly window: 'minute' | 'day',
    readonly retryAfterSeconds: number,
    options?: { cause?: unknown },
  ) {
    super(`Rate limit exceeded (per ${window}); retry in ${retryAfterSeconds} s`, options);
  }
}
/** The database is throttling; the client may retry shortly (503). */
export class Overloaded extends DomainError {
  readonly name = 'Overloaded';
  constructor(options?: { cause?: unknown }) {
    super('Service busy, retry shortly', options);
  }
}

/**
 * THE table: every error name to its HTTP status and its stable `code` (the answer's `code` field,
 * docs/errors.md, which a test holds against this table). Everything that answers a refusal reads
 * it (see the top of this file); a new error class does not compile without its row. A code never
 * changes once published: clients branch on it.
 */
export const errorTable = {
  InvalidInput: [400, 'invalid_input'],
  UnknownAction: [400, 'unknown_action'],
  Unauthenticated: [401, 'unauthenticated'],
  TierRequired: [403, 'tier_required'],
  Forbidden: [403, 'forbidden'],
  OutOfScope: [403, 'out_of_scope'],
  PlayerMismatch: [403, 'player_mismatch'],
  NotFound: [404, 'not_found'],
  MethodNotAllowed: [405, 'method_not_allowed'],
  Conflict: [409, 'conflict'],
  DeliveryAttemptPending: [409, 'delivery_attempt_pending'],
  TokenGone: [410, 'session_gone'],
  PayloadTooLarge: [413, 'payload_too_large'],
  UriTooLong: [414, 'uri_too_long'],
  Unprocessable: [422, 'idempotency_key_reused'],
  RateLimited: [429, 'rate_limited'],
  Overloaded: [503, 'overloaded'],
  Internal: [500, 'internal_error'],
} as const satisfies Record<string, readonly [number, string]>;

/** A name in the table: a named error, or `Internal` for anything else thrown (a failure of the service). */
type ErrorName = keyof typeof errorTable;
/** The name of a named error: a class's `name` must be one, so a new error class does not compile without its row. */
export type DomainErrorName = Exclude<ErrorName, 'Internal'>;

type Table = typeof errorTable;
/** Every error name to its HTTP status (the first column of {@link errorTable}). */
export const errorStatus = Object.fromEntries(Object.entries(errorTable).map(([name, [status]]) => [name, status])) as {
  readonly [N in ErrorName]: Table[N][0];
};

/** The stable code of any thrown value: a named error's, else `Internal`'s. */
export function codeOf(error: unknown): string {
  return errorTable[error instanceof DomainError ? error.name : 'Internal'][1];
}

/** Status of any thrown value: a named error's, else `Internal`'s (500). */
export function statusOf(error: unknown): number {
  return errorStatus[error instanceof DomainError ? error.name : 'Internal'];
}

/**
 * Whether an error refuses the request itself, so that the same request gets the same answer: a
 * status below 500 but the rate limit's 429 (the key's window passes; a failure of the service may
 * too). MCP answers such a refusal as a tool error; anything else ends the HTTP request.
 */
export function isRequestRefusal(error: unknown): error is DomainError {
  const status = statusOf(error);
  return status < 500 && status !== 429;
}
