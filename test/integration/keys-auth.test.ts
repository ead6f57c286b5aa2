/**
 * Bearer authentication (the JWT attack matrix: every one is 401 with a reason that does not echo
 * the token, nor logs it; the JWT profile of docs/decisions.md#admin-tokens). Authorization from the catalog (roles and
 * tiers: 403) is in keys-auth-roles.test.ts.
 */
import { afterAll, beforeAll, describe, expect, test } from '@jest/globals';
import { generateKeyPair, importJWK, SignJWT, type JWK } from 'jose';
import { createPrivateKey, createPublicKey, createSign } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { adminApi, type AdminApi } from '../support/admin-api.js';
import { capturedLogs, startStack, type Stack } from '../support/local-stack.js';

let stack: Stack;
let admin: AdminApi;
let privateJwk: JWK;
beforeAll(async () => {
  stack = await startStack();
  admin = adminApi(stack);
  privateJwk = JSON.parse(readFileSync(join(stack.dataDir, 'dev-issuer-key.json'), 'utf8')) as JWK;
});
afterAll(() => stack.stop());

const b64 = (value: unknown) => Buffer.from(JSON.stringify(value)).toString('base64url');
const now = () => Math.floor(Date.now() / 1000);
const listWith = (authorization?: string) =>
  stack.request('/api/org-api-keys?org_id=1', { headers: authorization === undefined ? {} : { authorization } });

/** Sign with the issuer's real private key, with full control over header and claims. */
async function signWithIssuerKey(claims: Record<string, unknown>, header: Record<string, unknown> = {}): Promise<string> {
  const key = await importJWK(privateJwk, 'RS256');
  return new SignJWT(claims).setProtectedHeader({ alg: 'RS256', kid: privateJwk.kid!, typ: 'JWT', ...header }).sign(key);
}

/** Sign any header and claims with the issuer's real key, bypassing every library check (RS256). */
function rawSign(header: Record<string, unknown>, claims: Record<string, unknown>): string {
  const input = `${b64({ alg: 'RS256', kid: privateJwk.kid, typ: 'JWT', ...header })}.${b64(claims)}`;
  const key = createPrivateKey({ key: privateJwk as import('node:crypto').JsonWebKey, format: 'jwk' });
  return `${input}.${createSign('RSA-SHA256').update(input).sign(key).toString('base64url')}`;
}

const validClaims = () => ({
  sub: 'acme-admin',
  iss: stack.issuer.issuer,
  aud: stack.issuer.audience,
  iat: now(),
  exp: now() + 3600,
});

describe('bearer authentication: the JWT attack matrix', () => {
  test('control: a valid token of the dev issuer lists the keys', async () => {
    const res = await listWith(`Bearer ${await stack.issuer.sign('acme-admin')}`);
    expect(res.status).toBe(200);
    expect(res.body.success).toBe(true);
  });

  const forgeries: [string, () => Promise<string | undefined>, RegExp][] = [
    ['missing Authorization header', async () => undefined, /missing bearer token/i],
    ['empty Authorization header', async () => '', /missing bearer token/i],
    ['non-Bearer scheme', async () => `Basic ${Buffer.from('acme-admin:pw').toString('base64')}`, /bearer scheme/i],
    ['Bearer without a token', async () => 'Bearer ', /bearer scheme/i],
    ['garbage', async () => 'Bearer not-a-jwt-at-all', /not a well-formed JWT/i],
    ['three garbage segments', async () => 'Bearer aaaa.bbbb.cccc', /not a well-formed JWT/i],
    ['expired', async () => `Bearer ${await stack.issuer.sign('acme-admin', { expiresIn: now() - 60 })}`, /expired/i],
    ['not yet valid (nbf)', async () => `Bearer ${await stack.issuer.sign('acme-admin', { notBefore: '1h' })}`, /not yet valid/i],
    ['wrong issuer', async () => `Bearer ${await stack.issuer.sign('acme-admin', { issuer: 'https://evil.example' })}`, /issuer/i],
    ['wrong audience', async () => `Bearer ${await stack.issuer.sign('acme-admin', { audience: 'another-service' })}`, /audience/i],
    [
      'bad signature (signed by another key under the issuer’s kid)',
      async () => {
        const { privateKey } = await generateKeyPair('RS256');
        return `Bearer ${await new SignJWT(validClaims()).setProtectedHeader({ alg: 'RS256', kid: privateJwk.kid! }).sign(privateKey)}`;
      },
      /signature is invalid/i,
    ],
    [
      'tampered payload (another subject, original signature)',
      async () => {
        const [h, , s] = (await stack.issuer.sign('acme-member')).split('.');
        return `Bearer ${h}.${b64({ ...validClaims(), sub: 'acme-admin' })}.${s}`;
      },
      /signature is invalid/i,
    ],
    [
      'alg: none',
      async () => `Bearer ${b64({ alg: 'none', typ: 'JWT', kid: privateJwk.kid })}.${b64(validClaims())}.`,
      /algorithm|well-formed/i,
    ],
    [
      'HS256 signed with the issuer’s public key (algorithm confusion)',
      async () => {
        const { d: _d, p: _p, q: _q, dp: _dp, dq: _dq, qi: _qi, ...publicJwk } = privateJwk;
        const pem = createPublicKey({ key: publicJwk as import('node:crypto').JsonWebKey, format: 'jwk' }).export({
          type: 'spki',
          format: 'pem',
        }) as string;
        const token = await new SignJWT(validClaims())
          .setProtectedHeader({ alg: 'HS256', kid: privateJwk.kid! })
          .sign(new TextEncoder().encode(pem));
        return `Bearer ${token}`;
      },
      /algorithm/i,
    ],
    [
      'unknown kid',
      async () => {
        const { privateKey } = await generateKeyPair('RS256');
        return `Bearer ${await new SignJWT(validClaims()).setProtectedHeader({ alg: 'RS256', kid: 'kid-nobody-knows' }).sign(privateKey)}`;
      },
      /signing key is unknown/i,
    ],
    [
      'ES256 from an unknown key',
      async () => {
        const { privateKey } = await generateKeyPair('ES256');
        return `Bearer ${await new SignJWT(validClaims()).setProtectedHeader({ alg: 'ES256', kid: 'ec-nobody-knows' }).sign(privateKey)}`;
      },
      /signing key is unknown/i,
    ],
    [
      'no kid',
      async () => {
        const key = await importJWK(privateJwk, 'RS256');
        return `Bearer ${await new SignJWT(validClaims()).setProtectedHeader({ alg: 'RS256' }).sign(key)}`;
      },
      /key id/i,
    ],
    [
      'no exp (the issuer’s real key)',
      async () => {
        const { exp: _exp, ...claims } = validClaims();
        return `Bearer ${await signWithIssuerKey(claims)}`;
      },
      /expiry/i,
    ],
    [
      'no sub (the issuer’s real key)',
      async () => {
        const { sub: _sub, ...claims } = validClaims();
        return `Bearer ${await signWithIssuerKey(claims)}`;
      },
      /subject/i,
    ],
  ];

  // The JWT profile: each signed by the issuer's real key.
  forgeries.push(
    ['crit header with an unknown extension', async () => `Bearer ${rawSign({ crit: ['x-ext'], 'x-ext': 1 }, validClaims())}`, /crit/],
    ['b64: false', async () => `Bearer ${rawSign({ b64: false }, validClaims())}`, /b64/],
    ['b64: true (still refused)', async () => `Bearer ${rawSign({ b64: true, crit: ['b64'] }, validClaims())}`, /crit|b64/],
    ['exp a century ahead', async () => `Bearer ${rawSign({}, { ...validClaims(), exp: now() + 100 * 365 * 86_400 })}`, /lifetime/],
    ['exp 24 h and a minute after iat', async () => `Bearer ${rawSign({}, { ...validClaims(), exp: now() + 86_460 })}`, /lifetime/],
    [
      'exp far ahead, counted from nbf when there is no iat',
      async () => {
        const { iat: _iat, ...claims } = validClaims();
        return `Bearer ${rawSign({}, { ...claims, nbf: now() - 10, exp: now() + 2 * 86_400 })}`;
      },
      /lifetime/,
    ],
    [
      'iat an hour in the future',
      async () => `Bearer ${rawSign({}, { ...validClaims(), iat: now() + 3600, exp: now() + 7200 })}`,
      /future/,
    ],
  );

  test('control: within the profile (iat 3 s ahead, exp 24 h after iat, nbf) is accepted', async () => {
    const iat = now() + 3;
    expect((await listWith(`Bearer ${rawSign({}, { ...validClaims(), iat, nbf: now() - 5, exp: iat + 86_400 })}`)).status).toBe(200);
  });

  test.each(forgeries)('%s: 401 with a reason that does not echo the token', async (_name, forge, reason) => {
    const authorization = await forge();
    const res = await listWith(authorization);
    expect(res.status).toBe(401);
    expect(res.body).toEqual({ success: false, error: expect.any(String), code: expect.any(String), request_id: expect.any(String) });
    expect(res.body.error).toMatch(reason);
    const token = authorization?.replace(/^\S+\s*/, '') ?? '';
    for (const part of token.split('.').filter((p) => p.length >= 8)) {
      expect(res.body.error).not.toContain(part);
      expect(capturedLogs.join('')).not.toContain(part);
    }
  });

  test('every bearer operation refuses a missing token, before reading the body', async () => {
    const api = '/api/org-api-keys';
    const calls = [
      stack.request(`${api}?org_id=1`),
      stack.request(api, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{not json' }),
      stack.request(api, {
        method: 'PATCH',
        headers: { 'content-type': 'application/json' },
        body: '{"id":1,"org_id":1,"is_active":false}',
      }),
      stack.request(`${api}?id=1&org_id=1`, { method: 'DELETE' }),
      stack.request(`${api}?action=audit-log&org_id=1`),
    ];
    for (const [i, res] of (await Promise.all(calls)).entries()) {
      expect(res.status).toBe(401);
      // A POST without ?action= (create-key) also says how a session is minted.
      const error =
        i === 1
          ? expect.stringMatching(/^POST \/api\/org-api-keys without \?action= creates an API key .*\?action=create-session/)
          : 'Missing bearer token (Authorization header)';
      expect(res.body).toEqual({ success: false, error, code: 'unauthenticated', request_id: res.headers.get('x-request-id') });
    }
    // The demo key was not touched by the PATCH.
    expect((await admin.list(1)).body.data.find((k: any) => k.id === 1).is_active).toBe(true);
  });

  test('the scheme name is case-insensitive', async () => {
    expect((await listWith(`bearer ${await stack.issuer.sign('acme-admin')}`)).status).toBe(200);
  });

  test('a Cognito-style access token (client_id instead of aud) is accepted', async () => {
    const token = await stack.issuer.sign('acme-admin', { audience: 'not-this', claims: { client_id: stack.issuer.audience } });
    expect((await listWith(`Bearer ${token}`)).status).toBe(200);
  });
});
