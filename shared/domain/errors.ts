/**
 * Named domain errors. Code throws these; the HTTP bundle maps each name to a status and the
 * `{success:false, error}` envelope in one table (`shared/http/error-status.ts`). Messages are
 * meant for the client; anything internal goes in `cause`, which is logged and never sent.
 */
export abstract class DomainError extends Error {
  abstract override readonly name: DomainErrorName;
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
  }
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
/** The addressed record does not exist for this caller (404). */
export class NotFound extends DomainError {
  readonly name = 'NotFound';
}
/** The route exists but not for this method (405). */
export class MethodNotAllowed extends DomainError {
  readonly name = 'MethodNotAllowed';
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

export type DomainErrorName =
  | 'InvalidInput'
  | 'PayloadTooLarge'
  | 'UriTooLong'
  | 'Unauthenticated'
  | 'TierRequired'
  | 'Forbidden'
  | 'OutOfScope'
  | 'NotFound'
  | 'MethodNotAllowed'
  | 'Conflict'
  | 'TokenGone'
  | 'Unprocessable'
  | 'RateLimited'
  | 'Overloaded';

/** THE table from error name to HTTP status; the HTTP bundle and the audit log both read it. */
export const errorStatus: Record<DomainErrorName, number> = {
  InvalidInput: 400,
  PayloadTooLarge: 413,
  UriTooLong: 414,
  Unauthenticated: 401,
  TierRequired: 403,
  Forbidden: 403,
  OutOfScope: 403,
  NotFound: 404,
  MethodNotAllowed: 405,
  Conflict: 409,
  TokenGone: 410,
  Unprocessable: 422,
  RateLimited: 429,
  Overloaded: 503,
};

/** Status of any thrown value: a domain error's, else 500. */
export function statusOf(error: unknown): number {
  return error instanceof DomainError ? errorStatus[error.name] : 500;
}
