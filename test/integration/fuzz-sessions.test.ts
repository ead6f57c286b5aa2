/**
 * Fuzzing of the four session operations over HTTP (the harness, its invariants and the seed:
 * `test/support/fuzz-harness.ts`): create-session and revoke-session with generated bodies, query
 * strings and x-api-key headers, validate-session with generated tokens and queries,
 * consume-session with generated bodies. Per request never a 5xx, always the envelope, never an
 * internal detail; per batch the tables changed only as accepted requests explain.
 *
 * Replay a failure with `FUZZ_SEED=<seed> npm test -- fuzz`.
 */
import { describe, test } from '@jest/globals';
import fc from 'fast-check';
import { API } from '../support/fuzz-attribution.js';
import { action, headersOf, method, RUNS, tokenValue, useFuzzRun, fuzzRunChecks } from '../support/fuzz-harness.js';
import { bodyOf, extraQuery, mutated } from '../support/fuzz-requests.js';

/** This file's batches, and those of every fuzz file. */
const BATCHES = ['create', 'validate', 'consume', 'revoke'] as const;

const run = useFuzzRun('fuzz-sessions');

describe('fuzz', () => {
  test(`create-session: ${RUNS.create} generated requests`, async () => {
    const body = mutated(
      { game_id: 301, external_ref: 'fuzz', metadata: { a: [1, 'b'] }, player_ref: 'fuzz-player', expires_in_minutes: 60 },
      ['stream_id', 'player_uuid'],
    );
    await run.fuzz(
      'create-session',
      RUNS.create,
      1,
      fc.record({
        method: method('POST'),
        path: fc.constant(API),
        query: extraQuery.map((q) => [...action('create-session'), ...q]),
        headers: headersOf(run.apiKeyHeader()),
        body: bodyOf(body),
      }),
    );
  }, 120_000);

  test(`validate-session: ${RUNS.validate} generated requests`, async () => {
    const query = fc
      .tuple(fc.array(tokenValue, { maxLength: 3 }), extraQuery)
      .map(([tokens, extra]) => [...action('validate-session'), ...tokens.map((t) => ['token', t] as const), ...extra]);
    await run.fuzz(
      'validate-session',
      RUNS.validate,
      2,
      fc.record({
        method: method('GET'),
        path: fc.constant(API),
        query,
        headers: headersOf(fc.constant([])),
        body: fc.constant(undefined),
      }),
    );
  }, 120_000);

  test(`consume-session: ${RUNS.consume} generated requests`, async () => {
    const body = tokenValue.chain((token) => mutated({ token, player_uuid: 'p-1' }));
    await run.fuzz(
      'consume-session',
      RUNS.consume,
      3,
      fc.record({
        method: method('POST'),
        path: fc.constant(API),
        query: extraQuery.map((q) => [...action('consume-session'), ...q]),
        headers: headersOf(fc.constant([])),
        body: bodyOf(body),
      }),
    );
  }, 120_000);

  test(`revoke-session: ${RUNS.revoke} generated requests`, async () => {
    const body = tokenValue.chain((token) => mutated({ token }));
    await run.fuzz(
      'revoke-session',
      RUNS.revoke,
      4,
      fc.record({
        method: method('POST'),
        path: fc.constant(API),
        query: extraQuery.map((q) => [...action('revoke-session'), ...q]),
        headers: headersOf(run.apiKeyHeader()),
        body: bodyOf(body),
      }),
    );
  }, 120_000);
});

fuzzRunChecks(run, BATCHES);
