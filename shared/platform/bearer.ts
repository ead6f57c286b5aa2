/**
 * Bearer authentication of org admins: a JWT from any OpenID Connect provider (Cognito, Clerk,
 * Auth0, the local run's development provider), verified with aws-jwt-verify against the provider's JWKS.
 * Signature, `iss`, `aud` (or `client_id`), `exp` and `nbf` are enforced, and only RSA and ECDSA
 * signatures are accepted. The profile is stricter than RFC 7519 requires (SECURITY.md, "Admin
 * JWTs"): no `crit` or `b64` header (RFC 7515 §4.1.11: a recipient must refuse critical extensions it
 * does not implement, and this one implements none), a lifetime of at most `JWT_MAX_LIFETIME_SECONDS`
 * (24 h by default) counted from `iat` (else `nbf`), and no `iat` in the future beyond the clock skew. The verifier is built once per container (see the features' `admin-services.ts`), so the
 * JWKS is fetched once and cached; an inline JWKS (`JWT_JWKS`) is used without any network call.
 * Keys are fetched over HTTPS by aws-jwt-verify's own cache, unless the caller hands the verifier
 * a JWKS cache of its own (the local runner does: its provider serves the keys over plain HTTP on
 * localhost).
 */
import { JwtVerifier } from 'aws-jwt-verify/jwt-verifier';
import {
  FetchError,
  JwksValidationError,
  JwtBaseError,
  JwtExpiredError,
  JwtInvalidAudienceError,
  JwtInvalidIssuerError,
  JwtInvalidSignatureAlgorithmError,
  JwtInvalidSignatureError,
  JwtNotBeforeError,
  JwtParseError,
  JwtWithoutValidKidError,
  KidNotFoundInJwksError,
  WaitPeriodNotYetEndedJwkError,
} from 'aws-jwt-verify/error';
import type { JwksCache } from 'aws-jwt-verify/jwk';
import type { JwtHeader, JwtPayload } from 'aws-jwt-verify/jwt-model';
import { Overloaded, Unauthenticated } from './errors.js';
import type { Env } from './env.js';

/** An org admin as the bearer token identifies them (the JWT `sub`). */
export interface AdminIdentity {
  readonly subject: string;
}

/** Signature algorithms an admin token may use: the RS256 and ES256 families, nothing symmetric. */
const ALLOWED_JWT_ALGORITHMS: readonly string[] = ['RS256', 'RS384', 'RS512', 'ES256', 'ES384', 'ES512'];

/** Clock skew tolerated on `exp` and `nbf` between the identity provider and the function. */
const JWT_CLOCK_TOLERANCE_SECONDS = 5;

/** Verifies the `Authorization` header of an admin call. */
export interface BearerVerifier {
  /** The admin the header identifies. @throws Unauthenticated (every failure), Overloaded (JWKS unreachable) */
  verify(authorization: string | undefined): Promise<AdminIdentity>;
}

/** The provider settings of the environment (issuer, audiences, JWKS URL or inline JWKS). */
export type JwtSettings = Pick<Env, 'JWT_ISSUER' | 'JWT_AUDIENCE' | 'JWT_JWKS_URL' | 'JWT_JWKS'> &
  Partial<Pick<Env, 'JWT_MAX_LIFETIME_SECONDS'>>;

/** What the caller may give the verifier besides the settings. */
export interface BearerVerifierOptions {
  /** Where the provider's JWKS is fetched and cached; aws-jwt-verify's own cache (HTTPS only) by default. */
  readonly jwksCache?: JwksCache | undefined;
}

/** Default longest lifetime of an admin token (`JWT_MAX_LIFETIME_SECONDS`): 24 h. */
const DEFAULT_JWT_MAX_LIFETIME_SECONDS = 86_400;

/**
 * A verifier for the configured provider. `JwtVerifier` is aws-jwt-verify 5's name for the
 * provider-neutral `JwtRsaVerifier` (now a deprecated alias of it), which also verifies ECDSA.
 */
export function createBearerVerifier(settings: JwtSettings, options: BearerVerifierOptions = {}): BearerVerifier {
  const audiences = settings.JWT_AUDIENCE.split(',')
    .map((a) => a.trim())
    .filter(Boolean);
  const jwksUri = settings.JWT_JWKS_URL;
  const verifier = JwtVerifier.create(
    {
      issuer: settings.JWT_ISSUER,
      // Checked below instead, so that a Cognito access token's `client_id` counts as its audience.
      audience: null,
      graceSeconds: JWT_CLOCK_TOLERANCE_SECONDS,
      ...(jwksUri ? { jwksUri } : {}),
      customJwtCheck: ({ header, payload }) =>
        checkClaims(header, payload, audiences, settings.JWT_MAX_LIFETIME_SECONDS ?? DEFAULT_JWT_MAX_LIFETIME_SECONDS),
    },
    ...(options.jwksCache ? [{ jwksCache: options.jwksCache }] : []),
  );
  const inline = settings.JWT_JWKS !== undefined;
  if (inline) verifier.cacheJwks(JSON.parse(settings.JWT_JWKS!));

  return {
    async verify(authorization) {
      const jwt = bearerToken(authorization);
      let payload: JwtPayload;
      try {
        // With an inline JWKS only the cached keys count: an unknown `kid` never triggers a fetch.
        payload = inline && !settings.JWT_JWKS_URL ? verifier.verifySync(jwt) : await verifier.verify(jwt);
      } catch (error) {
        throw translate(error);
      }
      return { subject: payload.sub! };
    },
  };
}

/** The token of a `Bearer` authorization header. */
function bearerToken(authorization: string | undefined): string {
  if (!authorization) throw new Unauthenticated('Missing bearer token (Authorization header)');
  const match = /^Bearer +(\S+)\s*$/i.exec(authorization);
  if (!match) throw new Unauthenticated('Authorization header must use the Bearer scheme');
  return match[1]!;
}

/** A claims problem found after the signature and the standard claims passed. */
class ClaimRefused extends Error {}

/**
 * What aws-jwt-verify leaves to the caller: algorithm family, no `crit`/`b64` header, required
 * `exp`/`sub`, bounded lifetime, `iat` not ahead, audience.
 */
function checkClaims(header: JwtHeader, payload: JwtPayload, audiences: readonly string[], maxLifetimeSeconds: number): void {
  if (!ALLOWED_JWT_ALGORITHMS.includes(header.alg ?? '')) throw new ClaimRefused('Bearer token algorithm is not allowed');
  // No extension is implemented here, so any critical one must be refused (RFC 7515 §4.1.11); an
  // unencoded payload (`b64`, RFC 7797) is not a JWT at all.
  if ('crit' in header) throw new ClaimRefused('Bearer token has critical header extensions (crit), which are not supported');
  if ('b64' in header) throw new ClaimRefused('Bearer token header b64 is not supported');
  // aws-jwt-verify checks `exp` only when present; a token without one would never expire.
  if (typeof payload.exp !== 'number') throw new ClaimRefused('Bearer token has no expiry (exp)');
  const now = Date.now() / 1000;
  if (typeof payload.iat === 'number' && payload.iat > now + JWT_CLOCK_TOLERANCE_SECONDS) {
    throw new ClaimRefused('Bearer token is issued in the future (iat)');
  }
  // A stolen token is only good for so long, however long its issuer made it.
  const start = typeof payload.iat === 'number' ? payload.iat : typeof payload.nbf === 'number' ? payload.nbf : now;
  if (payload.exp - start > maxLifetimeSeconds) {
    throw new ClaimRefused(`Bearer token lifetime exceeds ${maxLifetimeSeconds} seconds (exp too far after iat or nbf)`);
  }
  if (typeof payload.sub !== 'string' || payload.sub === '') throw new ClaimRefused('Bearer token has no subject (sub)');
  const aud = payload.aud === undefined ? [] : Array.isArray(payload.aud) ? payload.aud : [payload.aud];
  const presented = typeof payload.client_id === 'string' ? [...aud, payload.client_id] : aud;
  if (!presented.some((a) => audiences.includes(a))) throw new ClaimRefused('Bearer token is not for this service (audience)');
}

/** A verification failure as the client is told it: a reason, never the token or its claims. */
function translate(error: unknown): Error {
  if (error instanceof ClaimRefused) return new Unauthenticated(error.message);
  const reasons: [new (...args: any[]) => Error, string][] = [
    [JwtExpiredError, 'Bearer token has expired'],
    [JwtNotBeforeError, 'Bearer token is not yet valid'],
    [JwtInvalidIssuerError, 'Bearer token has the wrong issuer'],
    [JwtInvalidAudienceError, 'Bearer token is not for this service (audience)'],
    [JwtInvalidSignatureAlgorithmError, 'Bearer token algorithm is not allowed'],
    [JwtInvalidSignatureError, 'Bearer token signature is invalid'],
    [KidNotFoundInJwksError, 'Bearer token signing key is unknown'],
    [WaitPeriodNotYetEndedJwkError, 'Bearer token signing key is unknown'],
    [JwtWithoutValidKidError, 'Bearer token has no key id (kid)'],
    [JwtParseError, 'Bearer token is not a well-formed JWT'],
  ];
  for (const [type, reason] of reasons) if (error instanceof type) return new Unauthenticated(reason, { cause: error });
  // The provider's JWKS could not be had: not the caller's fault, so not a 401.
  if (error instanceof FetchError || error instanceof JwksValidationError) return new Overloaded({ cause: error });
  if (error instanceof JwtBaseError) return new Unauthenticated('Invalid bearer token', { cause: error });
  return error instanceof Error ? error : new Error(String(error));
}

/** What a bearer-authenticated operation needs to authenticate its caller. */
export interface BearerServices {
  /** Verifies admins' bearer tokens; built once per container, so the JWKS is fetched once. */
  readonly bearer: BearerVerifier;
}
