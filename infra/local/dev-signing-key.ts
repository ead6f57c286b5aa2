/**
 * The local identity provider's signing key: an RSA key pair generated into the data folder on
 * first run (`dev-issuer-key.json`, the name earlier runs used) and kept across runs, so tokens of
 * an earlier start stay verifiable. The provider (`identity-provider.ts`) signs with it; so does
 * {@link tokenSigner}, which tests use to forge the tokens no provider would issue (expired, another
 * audience, another issuer). Production uses a real OIDC provider instead (docs/deploy.md,
 * docs/api.md "Identity provider").
 */
import { exportJWK, generateKeyPair, importJWK, SignJWT, type JWK } from 'jose';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

/** Audience of the service's admin tokens (locally and by default: `JWT_AUDIENCE`'s default). */
export const DEV_AUDIENCE = 'game-session-token-service';

/** The signing key pair, as JWKs (the private one carries `kid`, `alg` and `use`). */
export interface DevSigningKey {
  readonly privateJwk: JWK;
  readonly publicJwk: JWK;
}

/** Load the key pair from `dataDir`, generating it on first run (owner-only file). */
export async function loadDevSigningKey(dataDir: string): Promise<DevSigningKey> {
  const file = join(dataDir, 'dev-issuer-key.json');
  if (!existsSync(file)) {
    const { privateKey } = await generateKeyPair('RS256', { extractable: true });
    const jwk = { ...(await exportJWK(privateKey)), kid: `dev-${Date.now().toString(36)}`, alg: 'RS256', use: 'sig' };
    writeFileSync(file, JSON.stringify(jwk), { mode: 0o600 });
  }
  const privateJwk = JSON.parse(readFileSync(file, 'utf8')) as JWK;
  const { d: _d, p: _p, q: _q, dp: _dp, dq: _dq, qi: _qi, ...publicJwk } = privateJwk;
  return { privateJwk, publicJwk };
}

/** Signs JWTs with the provider's key, bypassing the provider (tests forge bad tokens with it). */
export interface TokenSigner {
  /** The provider's issuer (`<baseUrl>/oidc`). */
  readonly issuer: string;
  readonly audience: string;
  /** Sign a JWT for `subject`; claims and lifetime may be overridden. */
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

/** A signer of 12-hour JWTs with `key`, as `issuer` for `audience` unless told otherwise. */
export async function tokenSigner(key: DevSigningKey, issuer: string, audience = DEV_AUDIENCE): Promise<TokenSigner> {
  const privateKey = await importJWK(key.privateJwk, 'RS256');
  return {
    issuer,
    audience,
    sign: async (subject, options = {}) => {
      const jwt = new SignJWT({ ...options.claims })
        .setProtectedHeader({ alg: 'RS256', kid: key.privateJwk.kid!, typ: 'JWT' })
        .setIssuer(options.issuer ?? issuer)
        .setAudience(options.audience ?? audience)
        .setSubject(subject)
        .setIssuedAt()
        .setExpirationTime(options.expiresIn ?? '12h');
      if (options.notBefore !== undefined) jwt.setNotBefore(options.notBefore);
      return jwt.sign(privateKey);
    },
  };
}
