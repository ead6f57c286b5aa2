/**
 * Fuzzing of key management, the audit log and the MCP endpoint over HTTP (the harness, its
 * invariants and the seed: `test/support/fuzz-harness.ts`): list, create, update and delete keys
 * and read the audit log with generated bodies, queries and bearer tokens (forged, expired,
 * foreign, of other roles and tiers); JSON-RPC messages with generated tools, arguments, Accept,
 * protocol versions and credentials. Per request never a 5xx, always the envelope (or MCP's
 * JSON-RPC), never an internal detail; per batch the tables changed only as accepted requests
 * explain.
 *
 * Replay a failure with `FUZZ_SEED=<seed> npm test -- fuzz`.
 */
import { describe, test } from '@jest/globals';
import fc from 'fast-check';
import { API, MCP_PATH } from '../support/fuzz-attribution.js';
import { headersOf, method, RUNS, useFuzzRun, fuzzRunChecks } from '../support/fuzz-harness.js';
import { bodyOf, extraQuery, mutated, weirdString, type FuzzRequest } from '../support/fuzz-requests.js';

/** This file's batches, and those of every fuzz file. */
const BATCHES = ['admin', 'mcp'] as const;

const run = useFuzzRun('fuzz-admin');

describe('fuzz', () => {
  test(`key management and audit log: ${RUNS.admin} generated requests`, async () => {
    const id = fc.oneof(fc.constant(String(run.targetKeyId)), fc.constant('1'), weirdString);
    const org = fc.oneof(
      { arbitrary: fc.constant('1'), weight: 4 },
      { arbitrary: fc.constantFrom('2', '3', '0', '-1', '1.0', '01', '9007199254740993'), weight: 1 },
      { arbitrary: weirdString, weight: 1 },
    );
    const asQuery = (pairs: [string, fc.Arbitrary<string>][]) =>
      fc
        .tuple(
          ...pairs.map(([k, v]) =>
            fc.option(
              v.map((x) => [k, x] as const),
              { freq: 6 },
            ),
          ),
          extraQuery,
        )
        .map((parts) => [
          ...(parts.slice(0, -1) as ([string, string] | null)[]).filter((p) => p !== null),
          ...(parts.at(-1) as FuzzRequest['query']),
        ]);
    const operations = fc.oneof(
      fc.record({ method: method('GET'), query: asQuery([['org_id', org]]), body: fc.constant(undefined) }),
      fc.record({
        method: method('POST'),
        query: fc.constant([]),
        body: bodyOf(
          mutated(
            {
              org_id: 1,
              name: 'fuzz',
              description: 'd',
              allowed_game_ids: [101],
              rate_limit_per_minute: 5,
              mcp_scopes: ['mcp:sessions:write'],
            },
            ['expires_at', 'allowed_stream_ids', 'rate_limit_per_day'],
          ),
        ),
      }),
      fc.record({
        method: method('PATCH'),
        query: fc.constant([]),
        body: bodyOf(
          mutated({ id: run.targetKeyId, org_id: 1, name: 'fuzz renamed', is_active: true }, [
            'description',
            'expires_at',
            'mcp_scopes',
            'rate_limit_per_day',
          ]),
        ),
      }),
      fc.record({
        method: method('DELETE'),
        query: asQuery([
          ['id', id],
          ['org_id', org],
        ]),
        body: fc.constant(undefined),
      }),
      fc.record({
        method: method('GET'),
        query: asQuery([
          ['action', fc.constant('audit-log')],
          ['org_id', org],
          ['key_id', id],
          ['cursor', weirdString],
          ['limit', weirdString],
        ]),
        body: fc.constant(undefined),
      }),
    );
    const request = fc.tuple(operations, headersOf(run.bearerHeader())).map(([op, headers]) => ({ ...op, path: API, headers }));
    await run.fuzz('admin', RUNS.admin, 5, request);
  }, 120_000);

  test(`MCP: ${RUNS.mcp} generated JSON-RPC requests`, async () => {
    const tools = [
      'create_session',
      'revoke_session',
      'list_games',
      'get_game',
      'list_streams',
      'get_stream',
      'get_session_report',
      'update_game',
    ];
    const message = fc.oneof(
      mutated({
        jsonrpc: '2.0',
        id: 1,
        method: 'initialize',
        params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'fuzz', version: '1' } },
      }),
      mutated({ jsonrpc: '2.0', id: 2, method: 'tools/list' }),
      mutated({ jsonrpc: '2.0', method: 'notifications/initialized' }),
      fc
        .tuple(
          fc.oneof(fc.constantFrom(...tools), weirdString),
          mutated({ game_id: 301, stream_id: 401, token: '3f2b8c1e-9a4d-4e7f-8b21-6c0d5e9f1a2b', expires_in_minutes: 5 }),
        )
        .chain(([name, args]) => mutated({ jsonrpc: '2.0', id: 3, method: 'tools/call', params: { name, arguments: args } })),
    );
    const accept = fc.oneof(
      { arbitrary: fc.constant([['accept', 'application/json, text/event-stream']] as const), weight: 8 },
      { arbitrary: fc.constantFrom('application/json', 'text/event-stream', '*/*', '').map((v) => [['accept', v]] as const), weight: 1 },
      { arbitrary: fc.constant([] as const), weight: 1 },
    );
    const credential = fc.oneof(
      { arbitrary: run.apiKeyHeader(), weight: 4 },
      { arbitrary: fc.constant([['authorization', `Bearer ${run.fuzzKey.raw}`]] as const), weight: 1 },
    );
    const version = fc.option(
      fc.constantFrom('2025-06-18', '2025-03-26', '1999-01-01', '').map((v) => [['mcp-protocol-version', v]] as const),
      { nil: [] as const },
    );
    const request = fc.record({
      method: method('POST'),
      path: fc.constant(MCP_PATH),
      query: fc.constant([]),
      headers: fc.tuple(headersOf(accept, credential), version).map(([a, b]) => [...a, ...b]),
      body: bodyOf(message),
    });
    await run.fuzz('mcp', RUNS.mcp, 7, request);
  }, 120_000);
});

fuzzRunChecks(run, BATCHES);
