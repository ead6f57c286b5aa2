/**
 * Fuzzing of the whole front over HTTP (the harness, its invariants and the seed:
 * `test/support/fuzz-harness.ts`): random methods, paths (API, play, stream, embed and demo-game
 * pages, traversal and malformed escapes), queries and headers, with or without the fuzz key. Per
 * request never a 5xx, on API paths always the envelope, never an internal detail; per batch the
 * tables changed only as accepted requests explain.
 *
 * Replay a failure with `FUZZ_SEED=<seed> npm test -- fuzz`.
 */
import { describe, test } from '@jest/globals';
import fc from 'fast-check';
import { API } from '../support/fuzz-attribution.js';
import { headersOf, RUNS, tokenValue, useFuzzRun, fuzzRunChecks } from '../support/fuzz-harness.js';
import { bodyOf, extraQuery, headerValue, percent, weirdString } from '../support/fuzz-requests.js';

/** This file's batch, and those of every fuzz file. */
const BATCHES = ['anywhere'] as const;

const run = useFuzzRun('fuzz-anywhere');

describe('fuzz', () => {
  test(`anywhere: ${RUNS.anywhere} requests with random methods, paths, queries and headers`, async () => {
    const segment = fc.oneof(
      fc.constantFrom('101', '201', '301', '0', '-1', '99999999999999999999', 'acme', '%E0%A4%A', '%2e%2e', '..', ''),
      weirdString.map((s) => percent(s.slice(0, 30))),
    );
    const path = fc.oneof(
      fc.constantFrom(
        '/',
        '/api',
        '/api/',
        API,
        `${API}/`,
        `${API}/create-session`,
        '/api/openapi.json',
        '/api/mcp',
        '/play/session',
        '/favicon.ico',
        '/demo-game/',
        '/demo-game/game.js',
      ),
      fc
        .tuple(fc.constantFrom('/play/game/', '/play/stream/', '/game/', '/embed/', '/demo-game/', '/api/', '/play/'), segment)
        .map(([p, s]) => p + s),
      fc.tuple(segment, segment).map(([org, id]) => `/stream/${org}/${id}`),
    );
    const query = fc
      .tuple(
        fc.option(tokenValue.map((t) => ['session_token', t] as const)),
        fc.option(
          fc
            .constantFrom('create-session', 'validate-session', 'consume-session', 'revoke-session', 'audit-log', 'mcp', '')
            .map((a) => ['action', a] as const),
        ),
        extraQuery,
      )
      .map(([t, a, extra]) => [...(t ? [t] : []), ...(a ? [a] : []), ...extra]);
    const extraHeaders = fc.array(
      fc.tuple(
        fc.constantFrom('cookie', 'x-api-key', 'authorization', 'x-origin-verify', 'accept', 'origin', 'x-forwarded-for', 'x-request-id'),
        headerValue,
      ),
      { maxLength: 3 },
    );
    const request = fc.record({
      method: fc.constantFrom('GET', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS', 'HEAD'),
      path,
      query,
      headers: fc.tuple(headersOf(run.apiKeyHeader()), extraHeaders).map(([a, b]) => [...a, ...b]),
      body: bodyOf(fc.oneof(fc.record({ token: tokenValue, session_id: fc.integer() }), fc.jsonValue({ maxDepth: 3 }))),
    });
    await run.fuzz('anywhere', RUNS.anywhere, 6, request);
  }, 120_000);
});

fuzzRunChecks(run, BATCHES);
