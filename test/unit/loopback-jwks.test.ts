/**
 * The JWKS fetcher of the local run (infra/local/loopback-jwks.ts): plain HTTP for this machine's
 * names only. A JWKS URL anywhere else never gets this fetcher, and the fetcher itself refuses one
 * (a key set over plain HTTP from another host could be replaced on the way).
 */
import { describe, expect, test } from '@jest/globals';
import { FetchError, NonRetryableFetchError } from 'aws-jwt-verify/error';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { isLoopbackHttpUrl, loopbackJwksCache } from '../../infra/local/loopback-jwks.js';

describe('which URLs are fetched over plain HTTP', () => {
  test.each([
    ['http://localhost:3000/oidc/jwks', true],
    ['http://127.0.0.1:3000/oidc/jwks', true],
    ['http://[::1]:3000/oidc/jwks', true],
    ['https://localhost:3000/oidc/jwks', false],
    ['http://localhost.evil.example/jwks', false],
    ['http://evil.example/oidc/jwks', false],
    ['http://10.0.0.1/jwks', false],
    ['not a url', false],
  ])('%s: %p', (url, loopback) => {
    expect(isLoopbackHttpUrl(url)).toBe(loopback);
  });
});

describe('the fetcher', () => {
  test('refuses a plain-HTTP URL of another host without fetching it', async () => {
    await expect(loopbackJwksCache().getJwks('http://evil.example/jwks')).rejects.toBeInstanceOf(NonRetryableFetchError);
  });

  test('fetches a key set from this machine; a non-200 answer is a fetch error', async () => {
    const keys = { keys: [{ kty: 'RSA', kid: 'k1', use: 'sig', alg: 'RS256', n: 'AQAB', e: 'AQAB' }] };
    const server = createServer((req, res) => {
      if (req.url === '/jwks') res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(keys));
      else res.writeHead(404).end();
    });
    await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
    const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    try {
      await expect(loopbackJwksCache().getJwks(`${base}/jwks`)).resolves.toEqual(keys);
      await expect(loopbackJwksCache().getJwks(`${base}/missing`)).rejects.toBeInstanceOf(NonRetryableFetchError);
    } finally {
      await new Promise((done) => server.close(done));
    }
  });

  test('a redirect is not followed: a loopback URL cannot lead the fetch to another server', async () => {
    let reached = false;
    const elsewhere = createServer((_req, res) => {
      reached = true;
      res.writeHead(200, { 'content-type': 'application/json' }).end('{"keys":[]}');
    });
    await new Promise<void>((done) => elsewhere.listen(0, '127.0.0.1', done));
    const target = `http://127.0.0.1:${(elsewhere.address() as AddressInfo).port}/jwks`;
    const redirecting = createServer((_req, res) => res.writeHead(302, { location: target }).end());
    await new Promise<void>((done) => redirecting.listen(0, '127.0.0.1', done));
    try {
      const url = `http://127.0.0.1:${(redirecting.address() as AddressInfo).port}/jwks`;
      await expect(loopbackJwksCache().getJwks(url)).rejects.toBeInstanceOf(FetchError);
      expect(reached).toBe(false);
    } finally {
      await Promise.all([redirecting, elsewhere].map((server) => new Promise((done) => server.close(done))));
    }
  });

  test('nothing listening: a fetch error (the service answers 503, not 401)', async () => {
    const server = createServer();
    await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
    const port = (server.address() as AddressInfo).port;
    await new Promise((done) => server.close(done));
    await expect(loopbackJwksCache().getJwks(`http://127.0.0.1:${port}/jwks`)).rejects.toBeInstanceOf(FetchError);
  });
});
