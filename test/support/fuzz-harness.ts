/**
 * The fuzz tier's harness (property-based fuzzing of the running service over HTTP, fast-check),
 * shared by `test/integration/fuzz-*.test.ts`: each file starts a stack with the fuzz's keys and
 * bearers, runs its batches of generated requests and checks, per request: never a 5xx; on API
 * paths always the JSON envelope (`{success:false, error}` for errors); never a stack trace or an
 * internal name in a body. Per batch: the tables changed only as accepted requests explain
 * (`fuzz-attribution.ts`).
 *
 * The seed is fixed and printed; replay a failure with `FUZZ_SEED=<seed> npm test -- fuzz`.
 */
import { afterAll, beforeAll, expect, test } from '@jest/globals';
import fc from 'fast-check';
import { randomUUID } from 'node:crypto';
import { generateRawKey } from '../../shared/keys/api-keys.js';
import { adminApi } from './admin-api.js';
import { addFigures, addFigureLine } from './figures.js';
import { checkAttribution, MCP_PATH, type Sent } from './fuzz-attribution.js';
import { contentTypes, headerValue, target, weirdString, type FuzzRequest } from './fuzz-requests.js';
import { createTestKey, putKeyRecord, UNLIMITED, type TestKey } from './keys.js';
import { startStack, type Stack } from './local-stack.js';
import { snapshotTables } from './tables.js';
import { stopAll } from './teardown.js';

/** Fixed by default so every run fuzzes the same requests; override to explore or to replay. */
const SEED = Number(process.env.FUZZ_SEED ?? 20_261_123);
/** Generated requests per endpoint group: 11,000 in all, over the fuzz files. */
export const RUNS = { create: 2_500, validate: 1_500, consume: 1_500, revoke: 1_000, admin: 2_000, mcp: 1_000, anywhere: 1_500 } as const;

/** The generated requests of these batches together. */
function runsOf(batches: readonly (keyof typeof RUNS)[]): number {
  return batches.reduce((sum, batch) => sum + RUNS[batch], 0);
}

/** What an answer must never contain: stack frames, source paths, library and internal names. */
const INTERNALS =
  /\bat (?:async )?[\w$.<>]+ \(|\.(?:ts|js|mjs):\d+|node_modules|node:internal|\/work\/|Exception\b|DynamoDB|dynalite|TypeError|ReferenceError|SyntaxError|RangeError|ZodError|middy|key_hash|org_tier|\bInvalidInput\b|\bTokenGone\b/;

/**
 * The error envelope: the spec's `success: false` and `error`, and beside them only
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

/** One fuzz file's run: its stack, keys and bearers (set in `beforeAll`), its batches and their figures. */
class FuzzRun {
  stack!: Stack;
  fuzzKey!: TestKey;
  revokedKey!: TestKey;
  targetKeyId!: number;
  bearers!: Record<'admin' | 'member' | 'free' | 'expired' | 'foreign', string>;
  /** Generated requests sent by this file so far. */
  fuzzed = 0;
  /** Answers by status, per batch: shows how deep the generated requests reached. */
  private readonly statuses: Record<string, Record<number, number>> = {};
  private sent: Sent[] = [];

  async start(): Promise<void> {
    const stack = (this.stack = await startStack());
    // Org 2: the admin fuzz acts on org 1 only, so it can never revoke or delete the key the fuzz uses.
    // MCP scopes that read or mint, none that edits the catalog: every change the fuzz causes stays attributable.
    const mcp_scopes = ['mcp:sessions:write', 'mcp:games:read', 'mcp:streams:read', 'mcp:reports:read'] as const;
    this.fuzzKey = await createTestKey(stack, { ...UNLIMITED, mcp_scopes }, { org_id: 2, tier: 'enterprise' });
    this.revokedKey = await createTestKey(stack, {}, { org_id: 2, tier: 'enterprise' });
    await putKeyRecord(stack, { ...this.revokedKey.record, is_active: false });
    const admin = adminApi(stack);
    this.targetKeyId = (await admin.create({ org_id: 1, name: 'fuzz target' })).body.data.id;
    this.bearers = {
      admin: await stack.issuer.sign('acme-admin'),
      member: await stack.issuer.sign('acme-member'),
      free: await stack.issuer.sign('tiny-admin'),
      expired: await stack.issuer.sign('acme-admin', { expiresIn: Math.floor(Date.now() / 1000) - 3600 }),
      foreign: await stack.issuer.sign('acme-admin', { audience: 'someone-else' }),
    };
    // Warm the session-id block, so that refused consumes (which hand their id back) write nothing.
    const token = (await stack.post('create-session', { game_id: 301 }, { 'x-api-key': this.fuzzKey.raw })).body.data.token;
    expect((await stack.post('consume-session', { token })).status).toBe(200);
  }

  /** Add this file's requests to the figures (summed over the fuzz files), stop the stack (also after a failed start). */
  async stop(file: string): Promise<void> {
    await stopAll(
      () => {
        addFigures({ requestsFuzzed: this.fuzzed }, { fuzzSeed: SEED });
        addFigureLine(
          `${file}: ${this.fuzzed.toLocaleString('en-US')} generated requests over HTTP, seed ${SEED} (replay: FUZZ_SEED=${SEED})`,
        );
        for (const [name, counts] of Object.entries(this.statuses)) {
          addFigureLine(
            `  ${name}: ${Object.entries(counts)
              .map(([status, n]) => `${status}×${n}`)
              .join(' ')}`,
          );
        }
      },
      () => this.stack?.stop(),
    );
  }

  /** Send one generated request and check what every answer must be. */
  private async send(request: FuzzRequest): Promise<void> {
    const headers = new Headers();
    for (const [name, value] of request.headers) headers.append(name, value);
    const reply = await this.stack.request(target(request), {
      method: request.method,
      headers,
      ...(request.body === undefined || request.method === 'GET' || request.method === 'HEAD' ? {} : { body: request.body }),
    });
    this.fuzzed++;
    this.sent.push({ request, status: reply.status, requestId: reply.headers.get('x-request-id'), body: reply.body });
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
      request.path === MCP_PATH &&
      (reply.status === 202 ? body === '' : typeof body === 'object' && body !== null && body.jsonrpc === '2.0');
    if (!isEnvelope && !isMcpAnswer) throw new Error(`neither the envelope nor an MCP answer: ${where}`);
    if (typeof body === 'object' && reply.status >= 400 && 'param' in body && !String(body.error).includes(String(body.param))) {
      throw new Error(`param not named by the message: ${where}`);
    }
  }

  /** Run a property of `runs` generated requests, then check that the tables changed only as accepted requests explain. */
  async fuzz(name: string, runs: number, offset: number, arbitrary: fc.Arbitrary<FuzzRequest>): Promise<void> {
    this.sent = [];
    const before = await snapshotTables(this.stack);
    const seed = SEED + offset;
    const details = await fc.check(
      // Beyond ~16 KiB of request line and headers Node itself answers 431 (API Gateway: 10 KiB): the edge's limit, not ours.
      fc.asyncProperty(
        arbitrary.filter((request) => target(request).length <= 12_000),
        (request) => this.send(request),
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
    expect(this.sent.length).toBeGreaterThanOrEqual(runs);
    this.statuses[name] = {};
    for (const { status } of this.sent) this.statuses[name][status] = (this.statuses[name][status] ?? 0) + 1;
    checkAttribution(name, this.sent, this.fuzzKey, before, await snapshotTables(this.stack));
  }

  /** An x-api-key header: mostly the fuzz key; sometimes none, doubled, revoked, unknown, altered or garbage. */
  apiKeyHeader() {
    const { fuzzKey, revokedKey } = this;
    return fc.oneof(
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
  }

  /** An Authorization header: mostly an org admin's bearer; sometimes another role's, expired, foreign, malformed, doubled or none. */
  bearerHeader() {
    const { bearers } = this;
    return fc.oneof(
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
  }
}

/** A fuzz run for this test file: started before its tests, its figures added and its stack stopped after them. */
export function useFuzzRun(file: string): FuzzRun {
  const run = new FuzzRun();
  beforeAll(() => run.start());
  afterAll(() => run.stop(file));
  return run;
}

/**
 * The closing checks of a fuzz file: its batches ran at least their share (and all files' shares
 * together make 10,000), and a token minted after the fuzz still works end to end.
 */
export function fuzzRunChecks(run: FuzzRun, batches: readonly (keyof typeof RUNS)[]): void {
  const all = Object.keys(RUNS) as (keyof typeof RUNS)[];
  const total = (b: readonly (keyof typeof RUNS)[]) => runsOf(b).toLocaleString('en-US');
  test(`the batches sum to at least ${total(batches)} generated requests (all fuzz files: ${total(all)}, at least 10,000)`, () => {
    expect(run.fuzzed).toBeGreaterThanOrEqual(runsOf(batches));
    expect(runsOf(all)).toBeGreaterThanOrEqual(10_000);
  });

  test('a token of the fuzz run still works end to end (the fuzz left the service healthy)', async () => {
    const created = await run.stack.post('create-session', { game_id: 301, external_ref: randomUUID() }, { 'x-api-key': run.fuzzKey.raw });
    expect(created.status).toBe(200);
    expect((await run.stack.post('consume-session', { token: created.body.data.token })).status).toBe(200);
  });
}

/** Request headers: the given choices, each of which may be missing or doubled, plus a content type. */
export function headersOf(...choices: fc.Arbitrary<readonly (readonly [string, string])[]>[]): fc.Arbitrary<FuzzRequest['headers']> {
  return fc.tuple(contentTypes, ...choices).map((parts) => parts.flat());
}

/** A session token: a UUID in either case, or any string an attacker would try. */
export const tokenValue = fc.oneof(
  fc.uuid().map(String),
  fc.uuid().map((u) => u.toUpperCase()),
  weirdString,
);
/** The `action` query parameter naming an operation. */
export const action = (name: string) => [['action', name] as const];
/** A method: mostly the operation's own, sometimes any other. */
export const method = (usual: string) =>
  fc.oneof(
    { arbitrary: fc.constant(usual), weight: 12 },
    { arbitrary: fc.constantFrom('GET', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS', 'HEAD'), weight: 1 },
  );
