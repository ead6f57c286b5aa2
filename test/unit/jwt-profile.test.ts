/**
 * The admin JWT lifetime cap is configurable (`JWT_MAX_LIFETIME_SECONDS`, shared/platform/env.ts): the same
 * token passes under the default (24 h) and is refused under a 1 h cap. The attack matrix itself
 * runs over HTTP in test/integration/keys-auth.test.ts.
 */
import { describe, expect, test } from '@jest/globals';
import { exportJWK, generateKeyPair, SignJWT } from 'jose';
import { createBearerVerifier } from '../../shared/platform/bearer.js';
import { EnvSchema, tableEnv } from '../../shared/platform/env.js';

const ISSUER = 'https://issuer.test';
const AUDIENCE = 'game-session-token-service';

async function setup() {
  const { privateKey, publicKey } = await generateKeyPair('RS256', { extractable: true });
  const jwks = JSON.stringify({ keys: [{ ...(await exportJWK(publicKey)), kid: 'k1', alg: 'RS256', use: 'sig' }] });
  const sign = (lifetimeSeconds: number) =>
    new SignJWT({})
      .setProtectedHeader({ alg: 'RS256', kid: 'k1' })
      .setIssuer(ISSUER)
      .setAudience(AUDIENCE)
      .setSubject('admin')
      .setIssuedAt()
      .setExpirationTime(Math.floor(Date.now() / 1000) + lifetimeSeconds)
      .sign(privateKey);
  const verifier = (max?: number) =>
    createBearerVerifier({
      JWT_ISSUER: ISSUER,
      JWT_AUDIENCE: AUDIENCE,
      JWT_JWKS: jwks,
      JWT_JWKS_URL: undefined,
      JWT_MAX_LIFETIME_SECONDS: max,
    });
  return { sign, verifier };
}

describe('JWT_MAX_LIFETIME_SECONDS', () => {
  test('defaults to 24 h in the environment schema', () => {
    expect(EnvSchema.parse(tableEnv((name) => name)).JWT_MAX_LIFETIME_SECONDS).toBe(86_400);
  });

  test('a 2 h token passes the default cap and is refused under a 1 h cap', async () => {
    const { sign, verifier } = await setup();
    const token = await sign(7200);
    await expect(verifier().verify(`Bearer ${token}`)).resolves.toEqual({ subject: 'admin' });
    await expect(verifier(3600).verify(`Bearer ${token}`)).rejects.toThrow(/lifetime exceeds 3600 seconds/);
    await expect(verifier(3600).verify(`Bearer ${await sign(3600)}`)).resolves.toEqual({ subject: 'admin' });
  });
});
