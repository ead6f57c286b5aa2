/**
 * A JWKS fetched over plain HTTP from this machine only: the local run's identity provider
 * (`oidc-provider` on `http://localhost:<port>/oidc`) publishes its keys there, and aws-jwt-verify
 * fetches with Node's `https` module, which refuses `http:`. The local runner hands this cache to
 * the bearer verifiers (`overrideServices({ jwksCache })` in `service.ts`); a deployed function
 * never carries it and fetches over HTTPS (the verifier's own fetcher). A JWKS over plain HTTP from
 * another host could be replaced on the way, so no other `http:` URL is ever fetched.
 */
import { FetchError, NonRetryableFetchError } from 'aws-jwt-verify/error';
import type { Fetcher } from 'aws-jwt-verify/https';
import { SimpleJwksCache } from 'aws-jwt-verify/jwk';

/** Names of this machine. */
const LOOPBACK_HOSTNAMES = new Set(['localhost', '127.0.0.1', '[::1]']);

/** Longest wait for the local provider's JWKS. */
const FETCH_TIMEOUT_MS = 3000;

/** Whether `url` is a plain-HTTP URL of this machine (the local identity provider). */
export function isLoopbackHttpUrl(url: string): boolean {
  const parsed = URL.parse(url);
  return parsed?.protocol === 'http:' && LOOPBACK_HOSTNAMES.has(parsed.hostname);
}

/** Fetches loopback `http:` URLs, and nothing else. */
const loopbackFetcher: Fetcher = {
  async fetch(uri) {
    if (!isLoopbackHttpUrl(uri)) throw new NonRetryableFetchError(uri, 'only http://localhost URLs are fetched over plain HTTP');
    let res: Response;
    try {
      // No redirect: a loopback URL must not lead the fetch, over plain HTTP, to any other host.
      res = await fetch(uri, { redirect: 'error', signal: AbortSignal.timeout(FETCH_TIMEOUT_MS) });
    } catch (error) {
      throw new FetchError(uri, error instanceof Error ? error.message : String(error));
    }
    if (res.status !== 200) throw new NonRetryableFetchError(uri, `Status code is ${res.status}, expected 200`);
    return res.arrayBuffer();
  },
};

/** The verifier's JWKS cache (its own caching and penalty box), fetching over loopback HTTP. */
export function loopbackJwksCache(): SimpleJwksCache {
  return new SimpleJwksCache({ fetcher: loopbackFetcher });
}
