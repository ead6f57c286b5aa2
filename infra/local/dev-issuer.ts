/**
 * The local development identity issuer: an RSA key pair generated into the data folder on first
 * run, signing 12-hour JWTs for the seeded users. Its JWKS is handed to aws-jwt-verify inline, so
 * no network call is ever made. Production uses a real OIDC provider instead (docs/deploy.md, docs/api.md "Identity provider").
 */
import { exportJWK, generateKeyPair, importJWK, SignJWT, type JWK } from 'jose';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

/** Audience of the service's admin tokens (locally and by default). */
const DEV_AUDIENCE = 'game-session-token-service';

/** A loaded development issuer. */
export interface DevIssuer {
  readonly issuer: string;
  readonly audience: string;
  readonly jwks: { keys: JWK[] };
  /** Sign a JWT for `subject`; claims and lifetime may be overridden (tests forge bad tokens). */
  sign(
    subject: string,
    options?: {
      expiresIn?: string | number;
      notBefore?: string | number;
      issuer?: string;
      audience?: string;
      claims?: Record<string, unknown>;
    },
  ): Promise<string>;
}

/** Load the issuer's key pair from `dataDir`, generating it on first run. */
export async function loadDevIssuer(dataDir: string, issuer: string): Promise<DevIssuer> {
  const file = join(dataDir, 'dev-issuer-key.json');
  if (!existsSync(file)) {
    const { privateKey } = await generateKeyPair('RS256', { extractable: true });
    const jwk = { ...(await exportJWK(privateKey)), kid: `dev-${Date.now().toString(36)}`, alg: 'RS256', use: 'sig' };
    writeFileSync(file, JSON.stringify(jwk), { mode: 0o600 });
  }
  const privateJwk = JSON.parse(readFileSync(file, 'utf8')) as JWK;
  const { d: _d, p: _p, q: _q, dp: _dp, dq: _dq, qi: _qi, ...publicJwk } = privateJwk;
  const key = await importJWK(privateJwk, 'RS256');
  return {
    issuer,
    audience: DEV_AUDIENCE,
    jwks: { keys: [publicJwk] },
    sign: async (subject, options = {}) => {
      const jwt = new SignJWT({ ...options.claims })
        .setProtectedHeader({ alg: 'RS256', kid: privateJwk.kid!, typ: 'JWT' })
        .setIssuer(options.issuer ?? issuer)
        .setAudience(options.audience ?? DEV_AUDIENCE)
        .setSubject(subject)
        .setIssuedAt()
        .setExpirationTime(options.expiresIn ?? '12h');
      if (options.notBefore !== undefined) jwt.setNotBefore(options.notBefore);
      return jwt.sign(key);
    },
  };
}
