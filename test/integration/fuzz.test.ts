/**
 * Property-based fuzzing of the running service over HTTP (fast-check): every endpoint gets
 * generated bodies, query strings and headers, and random methods and paths are thrown at the
 * whole front. Invariants, per request: never a 5xx; on API paths always the JSON envelope
 * (`{success:false, error}` for errors); never a stack trace or an internal name in a body. Per
 * batch: the tables changed only as accepted requests explain (a malformed request changes
 * nothing unless it presents a valid key: calls refused after authentication, its 400s included,
 * are counted and audited, as decided).
 *
 * The seed is fixed and printed; replay a failure with `FUZZ_SEED=<seed> npm test -- fuzz`.
 */
import { afterAll, beforeAll, describe, expect, test } from '@jest/globals';
import fc from 'fast-check';
import { randomUUID } from 'node:crypto';
import { generateRawKey } from '../../shared/domain/api-keys.js';
import { matchRoute } from '../../shared/routes.js';
import { adminApi } from '../support/admin-api.js';
import { addFigures, printFigures } from '../support/figures.js';
import {
  bodyOf,
  contentTypes,
  extraQuery,
  headerValue,
  mutated,
  percent,
  target,
  weirdString,
  type FuzzRequest,
} from '../support/fuzz-requests.js';
import { createTestKey, putKeyRecord, UNLIMITED, type TestKey } from '../support/keys.js';
import { startStack, type Stack } from '../support/local-stack.js';
import { diffTables, snapshotTables, type Snapshot } from '../support/tables.js';
import { stopAll } from '../support/teardown.js';

/** Fixed by default so every run fuzzes the same requests; override to explore or to replay. */
const SEED = Number(process.env.FUZZ_SEED ?? 20_261_123);
/** Generated requests per endpoint group: 11,000 in all. */
const RUNS = { create: 2_500, validate: 1_500, consume: 1_500, revoke: 1_000, admin: 2_000, mcp: 1_000, anywhere: 1_500 } as const;
const API = '/api/org-api-keys';
const MCP_PATH = '/api/mcp';
/** A session token in an answer, also inside JSON text (MCP tool results). */
const TOKEN_IN_ANSWER = /\\?"token\\?"\s*:\s*\\?"([0-9a-fA-F-]{36})/g;

/** What an answer must never contain: stack frames, source paths, library and internal names. */
const INTERNALS =
  /\bat (?:async )?[\w$.<>]+ \(|\.(?:ts|js|mjs):\d+|node_modules|node:internal|\/work\/|Exception\b|DynamoDB|dynalite|TypeError|ReferenceError|SyntaxError|RangeError|ZodError|middy|key_hash|org_tier|\bInvalidInput\b|\bTokenGone\b/;

let stack: Stack;
let fuzzKey: TestKey;
let revokedKey: TestKey;
let targetKeyId: number;
let bearers: Record<'admin' | 'member' | 'free' | 'expired' | 'foreign', string>;
let fuzzed = 0;
/** Answers by status, per batch: shows how deep the generated requests reached. */
const statuses: Record<string, Record<number, number>> = {};

/** A request sent and its answer, for the batch's attribution check. */
interface Sent {
  readonly request: FuzzRequest;
  readonly status: number;
  readonly requestId: string | null;
  readonly body: any;
}
let sent: Sent[] = [];

beforeAll(async () => {
  stack = await startStack();
  // Org 2: the admin fuzz acts on org 1 only, so it can never revoke or delete the key the fuzz uses.
  // MCP scopes that read or mint, none that edits the catalog: every change the fuzz causes stays attributable.
  const mcp_scopes = ['mcp:sessions:write', 'mcp:games:read', 'mcp:streams:read', 'mcp:reports:read'];
  fuzzKey = await createTestKey(stack, { ...UNLIMITED, mcp_scopes }, { org_id: 2, tier: 'enterprise' });
  revokedKey = await createTestKey(stack, {}, { org_id: 2, tier: 'enterprise' });
  await putKeyRecord(stack, { ...revokedKey.record, is_active: false });
  const admin = adminApi(stack);
  targetKeyId = (await admin.create({ org_id: 1, name: 'fuzz target' })).body.data.id;
  bearers = {
    admin: await stack.issuer.sign('acme-admin'),
    member: await stack.issuer.sign('acme-member'),
    free: await stack.issuer.sign('tiny-admin'),
    expired: await stack.issuer.sign('acme-admin', { expiresIn: Math.floor(Date.now() / 1000) - 3600 }),
    foreign: await stack.issuer.sign('acme-admin', { audience: 'someone-else' }),
  };
  // Warm the session-id block, so that refused consumes (which hand their id back) write nothing.
  const token = (await stack.post('create-session', { game_id: 301 }, { 'x-api-key': fuzzKey.raw })).body.data.token;
  expect((await stack.post('consume-session', { token })).status).toBe(200);
});

afterAll(() =>
  stopAll(
    () => {
      addFigures({ requestsFuzzed: fuzzed }, { fuzzSeed: SEED });
      printFigures(`fuzz: ${fuzzed.toLocaleString('en-US')} generated requests over HTTP, seed ${SEED} (replay: FUZZ_SEED=${SEED})`);
      for (const [name, counts] of Object.entries(statuses)) {
        printFigures(
          `  ${name}: ${Object.entries(counts)
            .map(([status, n]) => `${status}×${n}`)
            .join(' ')}`,
        );
      }
    },
    () => stack?.stop(),
  ),
);

/**
 * The error envelope (issue 18): the spec's `success: false` and `error`, and beside them only
 * `code`, `request_id` (equal to the `x-request-id` header) and, when a field is at fault, `param`.
 */
function isErrorBody(body: Record<string, unknown>, requestId: string | null): boolean {
  const keys = Object.keys(body).sort().join();
  return (
    (keys === 'code,error,request_id,success' || keys === 'code,error,param,request_id,success') &&
    body.success === false &&
    typeof body.error === 'string' &&
    typeof body.code === 'string' &&
    body.request_id === requestId &&
    (body.param === undefined || typeof body.param === 'string')
  );
}

/** Send one generated request and check what every answer must be. */
async function send(request: FuzzRequest): Promise<void> {
  const headers = new Headers();
  for (const [name, value] of request.headers) headers.append(name, value);
  const reply = await stack.request(target(request), {
    method: request.method,
    headers,
    ...(request.body === undefined || request.method === 'GET' || request.method === 'HEAD' ? {} : { body: request.body }),
  });
  fuzzed++;
  sent.push({ request, status: reply.status, requestId: reply.headers.get('x-request-id'), body: reply.body });
  const text = typeof reply.body === 'string' ? reply.body : JSON.stringify(reply.body);
  const where = `${request.method} ${target(request).slice(0, 200)} -> ${reply.status} ${text.slice(0, 300)}`;
  if (reply.status >= 500) throw new Error(`5xx: ${where}`);
  if (INTERNALS.test(text)) throw new Error(`internal detail in the answer: ${where}`);
  if (!request.path.startsWith('/api/') || request.method === 'HEAD' || request.path === '/api/openapi.json') return;
  const body = reply.body as Record<string, unknown> | string;
  const isEnvelope =
    typeof body === 'object' &&
    body !== null &&
    (reply.status >= 400 ? isErrorBody(body, reply.headers.get('x-request-id')) : body.success === true && 'data' in body);
  // MCP answers in its own wire format once the bundle lets a message through: JSON-RPC (202 and no body for a notification).
  const isMcpAnswer =
    request.path === MCP_PATH && (reply.status === 202 ? body === '' : typeof body === 'object' && body !== null && body.jsonrpc === '2.0');
  if (!isEnvelope && !isMcpAnswer) throw new Error(`neither the envelope nor an MCP answer: ${where}`);
  if (typeof body === 'object' && reply.status >= 400 && 'param' in body && !String(body.error).includes(String(body.param))) {
    throw new Error(`param not named by the message: ${where}`);
  }
}

/** Run a property of `runs` generated requests, then check that the tables changed only as accepted requests explain. */
async function fuzz(name: string, runs: number, offset: number, arbitrary: fc.Arbitrary<FuzzRequest>): Promise<void> {
  sent = [];
  const before = await snapshotTables(stack);
  const seed = SEED + offset;
  const details = await fc.check(
    // Beyond ~16 KiB of request line and headers Node itself answers 431 (API Gateway: 10 KiB): the edge's limit, not ours.
    fc.asyncProperty(
      arbitrary.filter((request) => target(request).length <= 12_000),
      (request) => send(request),
    ),
    { seed, numRuns: runs, endOnFailure: true },
  );
  if (details.failed) {
    const cause = details.errorInstance instanceof Error ? details.errorInstance.message : String(details.errorInstance);
    throw new Error(
      `${name}: property failed at run ${details.numRuns} (seed ${seed}, path ${details.counterexamplePath}; replay the file with ` +
        `FUZZ_SEED=${SEED}): ${cause.slice(0, 600)}\ncounterexample: ${JSON.stringify(details.counterexample)?.slice(0, 600)}`,
    );
  }
  expect(sent.length).toBeGreaterThanOrEqual(runs);
  statuses[name] = {};
  for (const { status } of sent) statuses[name][status] = (statuses[name][status] ?? 0) + 1;
  checkAttribution(name, before, await snapshotTables(stack));
}

/** Every change to the tables is explained by an accepted request; a refused one changed nothing. */
function checkAttribution(name: string, before: Snapshot, after: Snapshot): void {
  const diff = diffTables(before, after);
  const byRequest = new Map(sent.filter((s) => s.requestId).map((s) => [s.requestId!, s]));
  const ok = sent.filter((s) => s.status === 200);
  const isMcp = (s: Sent) => s.request.path === MCP_PATH;
  // REST calls of the fuzz key that passed authentication: the only statuses they can end with (the key
  // is authenticated before the input is validated, so a 400 or 413 of the key is counted too).
  const afterAuth = (s: Sent) => !isMcp(s) && keyAuthenticated(s.request) && [200, 400, 403, 404, 410, 413].includes(s.status);
  const restKeyCalls = sent.filter(afterAuth);

  // The catalog, and any table not named below (no generated request carries an Idempotency-Key), never change.
  const explained = new Set(['tokens', 'keys', 'counters', 'audit']);
  for (const [table, change] of Object.entries(diff).filter(([t]) => !explained.has(t))) {
    expect({ name, table, ...change }).toEqual({ name, table, added: [], removed: [], changed: [] });
  }
  // Tokens: only those handed out by a 200 create, and only tokens a 200 consume or revoke named.
  const minted = new Set(ok.flatMap((s) => [...JSON.stringify(s.body).matchAll(TOKEN_IN_ANSWER)].map((m) => m[1]!.toLowerCase())));
  expect(diff.tokens.added.filter((t) => !minted.has(String(t.token)))).toEqual([]);
  const named = ok.map((s) => (typeof s.request.body === 'string' ? s.request.body : '')).join('\n');
  expect(diff.tokens.changed.filter((c) => !named.includes(String(c.after.token)))).toEqual([]);
  expect(diff.tokens.removed).toEqual([]);
  // Audit: one record per audited request, with the status the client was given (over MCP a refused
  // tool is a tool error in a 200 answer: its record says the refusal, never a success).
  const misattributed = diff.audit.added.filter((r) => {
    const s = byRequest.get(String(r.request_id));
    const status = Number(r.status);
    // Over MCP a 2xx answer may carry a tool error, audited as its 4xx, and the SDK words some refusals
    // with its own 4xx: the record still never calls a refused request a success.
    const mcpConsistent = s !== undefined && isMcp(s) && (s.status < 300 ? status < 500 : s.status < 500 && status >= 400 && status < 500);
    return !s || (s.status !== status && !mcpConsistent);
  });
  expect(misattributed.map((r) => ({ action: r.action, audit: r.status, reply: byRequest.get(String(r.request_id))?.status }))).toEqual([]);
  const refusedBeforeAuth = sent
    .filter((s) => [400, 401, 405, 413, 414].includes(s.status) && !isMcp(s) && !afterAuth(s))
    .map((s) => s.requestId);
  expect(diff.audit.added.filter((r) => refusedBeforeAuth.includes(String(r.request_id)))).toEqual([]);
  expect([...diff.audit.removed, ...diff.audit.changed]).toEqual([]);
  // Counters: the fuzz key's windows count exactly its calls that passed authentication; the key-id
  // sequence moves only for creates that reached authorization (a refused one hands its id back).
  // One counter item per key, day and shard holds the day (`day`) and each minute (`m<minute>`);
  // a count removes minutes long past, so only growth counts.
  const counted = (window: 'minute' | 'day') =>
    [...diff.counters.added.map((c) => ({ after: c, before: {} as Record<string, unknown> })), ...diff.counters.changed]
      .filter((c) => String(c.after.pk).startsWith(`rate#${fuzzKey.record.id}#`))
      .flatMap((c) =>
        Object.keys(c.after)
          .filter((field) => (window === 'day' ? field === 'day' : /^m\d+$/.test(field)))
          .map((field) => Math.max(0, Number(c.after[field]) - Number(c.before[field] ?? 0))),
      )
      .reduce((sum, n) => sum + n, 0);
  // Every counted call is audited once (no faults here): both windows grew by exactly the key's audit records.
  const audited = diff.audit.added.filter((r) => r.key_id === fuzzKey.record.id);
  // (A minute's count leaves its item once the clock is 10 minutes on, and fuzzing moves the clock:
  // the day count is exact, the minutes still seen can only fall short of it.)
  expect(counted('day')).toBe(audited.length);
  expect(counted('minute')).toBeLessThanOrEqual(audited.length);
  const restAudited = audited.filter((r) => !isMcp(byRequest.get(String(r.request_id))!));
  expect(restAudited.map((r) => r.request_id).sort()).toEqual(restKeyCalls.map((s) => s.requestId).sort());
  const otherCounters = [
    ...diff.counters.added.map((after) => ({ after })),
    ...diff.counters.changed,
    ...diff.counters.removed.map((after) => ({ after })),
  ]
    .map((c) => String(c.after.pk))
    .filter((pk) => !pk.startsWith(`rate#${fuzzKey.record.id}#`));
  const createsAuthorized = sent.filter(
    (s) => s.request.method === 'POST' && s.request.path === API && !s.request.query.length && [200, 403].includes(s.status),
  );
  expect(otherCounters.filter((pk) => pk !== 'seq#key_id' || createsAuthorized.length === 0)).toEqual([]);
  // Keys: created, changed or deleted only by a 200 admin answer naming them; the fuzz key only gets its use stamp.
  const adminIds = new Set(ok.map((s) => s.body?.data?.id).filter((id) => typeof id === 'number'));
  const keyChanges = [...diff.keys.added, ...diff.keys.removed, ...diff.keys.changed.map((c) => c.after)];
  // A key's id item (`id#<key id>`: shared/store/key-id-items.ts) is explained by the same answer as its key.
  const idOf = (k: Record<string, unknown>) => (String(k.key_hash).startsWith('id#') ? Number(String(k.key_hash).slice(3)) : k.id);
  const unexplained = keyChanges.filter(
    (k) => !adminIds.has(idOf(k) as number) && !(k.id === fuzzKey.record.id && onlyUseStamp(diff.keys.changed, k)),
  );
  expect(unexplained).toEqual([]);
}

/** Whether a request reached a key-authenticated operation with exactly the fuzz key (the front's routing rule). */
function keyAuthenticated(request: FuzzRequest): boolean {
  const url = new URL(target(request), 'http://localhost');
  const actions = url.searchParams.getAll('action');
  const match = matchRoute(request.method, url.pathname, actions.length ? actions.join(',') : undefined);
  // HTTP strips the blanks around a header value (fetch does before sending).
  const keys = request.headers.filter(([h]) => h === 'x-api-key').map(([, v]) => v.trim());
  return match.kind === 'route' && match.route.auth === 'apiKey' && keys.join() === fuzzKey.raw;
}

function onlyUseStamp(
  changed: { before: Record<string, unknown>; after: Record<string, unknown> }[],
  key: Record<string, unknown>,
): boolean {
  const change = changed.find((c) => c.after.key_hash === key.key_hash);
  if (!change) return false;
  const { last_used_at: _a, ...after } = change.after;
  const { last_used_at: _b, ...before } = change.before;
  return JSON.stringify(after) === JSON.stringify(before);
}

/** Request headers: the given choices, each of which may be missing or doubled, plus a content type. */
function headersOf(...choices: fc.Arbitrary<readonly (readonly [string, string])[]>[]): fc.Arbitrary<FuzzRequest['headers']> {
  return fc.tuple(contentTypes, ...choices).map((parts) => parts.flat());
}

const apiKeyHeader = () =>
  fc.oneof(
    { arbitrary: fc.constant([['x-api-key', fuzzKey.raw]] as const), weight: 10 },
    { arbitrary: fc.constant([] as const), weight: 1 },
    {
      arbitrary: fc.constant([
        ['x-api-key', fuzzKey.raw],
        ['x-api-key', fuzzKey.raw],
      ] as const),
      weight: 1,
    },
    {
      arbitrary: fc
        .constantFrom(revokedKey.raw, generateRawKey(), ` ${fuzzKey.raw}`, fuzzKey.raw.toUpperCase(), fuzzKey.raw.slice(0, 20), '')
        .map((v) => [['x-api-key', v]] as const),
      weight: 2,
    },
    { arbitrary: headerValue.map((v) => [['x-api-key', v]] as const), weight: 1 },
  );

const bearerHeader = () =>
  fc.oneof(
    { arbitrary: fc.constant([['authorization', `Bearer ${bearers.admin}`]] as const), weight: 10 },
    {
      arbitrary: fc
        .constantFrom(
          `Bearer ${bearers.member}`,
          `Bearer ${bearers.free}`,
          `Bearer ${bearers.expired}`,
          `Bearer ${bearers.foreign}`,
          'Bearer',
          'Basic YTpi',
          `bearer ${bearers.admin}x`,
        )
        .map((v) => [['authorization', v]] as const),
      weight: 3,
    },
    { arbitrary: fc.constant([] as const), weight: 1 },
    {
      arbitrary: fc.constant([
        ['authorization', `Bearer ${bearers.admin}`],
        ['authorization', `Bearer ${bearers.admin}`],
      ] as const),
      weight: 1,
    },
    { arbitrary: headerValue.map((v) => [['authorization', `Bearer ${v}`]] as const), weight: 1 },
  );

const tokenValue = fc.oneof(
  fc.uuid().map(String),
  fc.uuid().map((u) => u.toUpperCase()),
  weirdString,
);
const action = (name: string) => [['action', name] as const];
const method = (usual: string) =>
  fc.oneof(
    { arbitrary: fc.constant(usual), weight: 12 },
    { arbitrary: fc.constantFrom('GET', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS', 'HEAD'), weight: 1 },
  );

describe('fuzz', () => {
  test(`create-session: ${RUNS.create} generated requests`, async () => {
    const body = mutated({ game_id: 301, external_ref: 'fuzz', metadata: { a: [1, 'b'] }, expires_in_minutes: 60 }, [
      'stream_id',
      'player_uuid',
    ]);
    await fuzz(
      'create-session',
      RUNS.create,
      1,
      fc.record({
        method: method('POST'),
        path: fc.constant(API),
        query: extraQuery.map((q) => [...action('create-session'), ...q]),
        headers: headersOf(apiKeyHeader()),
        body: bodyOf(body),
      }),
    );
  }, 120_000);

  test(`validate-session: ${RUNS.validate} generated requests`, async () => {
    const query = fc
      .tuple(fc.array(tokenValue, { maxLength: 3 }), extraQuery)
      .map(([tokens, extra]) => [...action('validate-session'), ...tokens.map((t) => ['token', t] as const), ...extra]);
    await fuzz(
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
    await fuzz(
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
    await fuzz(
      'revoke-session',
      RUNS.revoke,
      4,
      fc.record({
        method: method('POST'),
        path: fc.constant(API),
        query: extraQuery.map((q) => [...action('revoke-session'), ...q]),
        headers: headersOf(apiKeyHeader()),
        body: bodyOf(body),
      }),
    );
  }, 120_000);

  test(`key management and audit log: ${RUNS.admin} generated requests`, async () => {
    const id = fc.oneof(fc.constant(String(targetKeyId)), fc.constant('1'), weirdString);
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
          mutated({ id: targetKeyId, org_id: 1, name: 'fuzz renamed', is_active: true }, [
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
    const request = fc.tuple(operations, headersOf(bearerHeader())).map(([op, headers]) => ({ ...op, path: API, headers }));
    await fuzz('admin', RUNS.admin, 5, request);
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
      { arbitrary: apiKeyHeader(), weight: 4 },
      { arbitrary: fc.constant([['authorization', `Bearer ${fuzzKey.raw}`]] as const), weight: 1 },
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
    await fuzz('mcp', RUNS.mcp, 7, request);
  }, 120_000);

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
      headers: fc.tuple(headersOf(apiKeyHeader()), extraHeaders).map(([a, b]) => [...a, ...b]),
      body: bodyOf(fc.oneof(fc.record({ token: tokenValue, session_id: fc.integer() }), fc.jsonValue({ maxDepth: 3 }))),
    });
    await fuzz('anywhere', RUNS.anywhere, 6, request);
  }, 120_000);

  test('the batches sum to at least 10,000 generated requests', () => {
    expect(fuzzed).toBeGreaterThanOrEqual(Object.values(RUNS).reduce((a, b) => a + b, 0));
    expect(fuzzed).toBeGreaterThanOrEqual(10_000);
  });
});

test('a token of the fuzz run still works end to end (the fuzz left the service healthy)', async () => {
  const created = await stack.post('create-session', { game_id: 301, external_ref: randomUUID() }, { 'x-api-key': fuzzKey.raw });
  expect(created.status).toBe(200);
  expect((await stack.post('consume-session', { token: created.body.data.token })).status).toBe(200);
});
