/**
 * Refusals and replays: the requests whose conditional write DynamoDB refuses and whose reason the
 * service must learn. DynamoDB (and DynamoDB Local) returns the refused item with the refusal
 * (`ReturnValuesOnConditionCheckFailure: ALL_OLD`), and so does dynalite through its local stand-in
 * (`infra/local/dynalite-refusals.ts`): no item is read again. Measured like the warm path
 * (./stages.ts: warm-up, then recorded requests, medians), on each backend (`--backend local`);
 * `--only=refusals` runs just this.
 */
import { PutCommand } from '@aws-sdk/lib-dynamodb';
import { generateRawKey, newKeyRecord } from '../../shared/keys/api-keys.js';
import type { ApiKeyRecord } from '../../shared/keys/index.js';
import { IdAllocator } from '../../shared/platform/ids.js';
import { API_PATH } from '../../shared/platform/route.js';
import type { BenchStack } from './harness.js';
import type { BenchRequest, BenchResponse } from './http.js';
import { CREATE_BODY, TokenPool, type BenchOperation } from './operations.js';
import { measureStages, type StageFigures } from './stages.js';
import { round } from './stats.js';
import { table } from './table.js';

/** The figures of one run: which backend, and each case's stages, calls and units. */
export interface RefusalFigures {
  readonly backend: string;
  readonly byName: ReadonlyMap<string, StageFigures>;
}

/** What each case is, for the table. */
const WHAT: Record<string, string> = {
  consume_consumed: 'consume of a consumed token (410)',
  revoke_consumed: 'revoke of a consumed token (410)',
  create_over_limit: 'create-session over its minute limit (429)',
  idempotent_replay: 'create-session replayed (same Idempotency-Key)',
  create_revoked_ahead: 'create-session of a key revoked since the container read it valid (401)',
};

/** Warm up, then record `samples` requests of each case. */
export async function measureRefusals(
  stack: BenchStack,
  backend: string,
  options: { warmup: number; samples: number },
): Promise<RefusalFigures> {
  const ops = await refusalOperations(stack);
  return { backend, byName: await measureStages(stack, ops, options) };
}

/** The five cases, each preparing (unmeasured) what makes its request a refusal or a replay. */
async function refusalOperations(stack: BenchStack): Promise<BenchOperation[]> {
  const { apiKey, http } = stack;
  const pool = new TokenPool(stack);
  const consume = (token: string): BenchRequest => ({
    method: 'POST',
    path: `${API_PATH}?action=consume-session`,
    body: { token, player_uuid: 'p-1' },
  });
  const consumed = async () => {
    const token = await pool.take();
    expectStatus('consume', await http.send(consume(token)), 200);
    return token;
  };
  let n = 0;
  return [
    {
      name: 'consume_consumed',
      operation: 'consume-session',
      fn: 'consume-session',
      status: 410,
      prepare: async () => consume(await consumed()),
    },
    {
      name: 'revoke_consumed',
      operation: 'revoke-session',
      fn: 'revoke-session',
      status: 410,
      prepare: async () => ({
        method: 'POST',
        path: `${API_PATH}?action=revoke-session`,
        headers: { 'x-api-key': apiKey },
        body: { token: await consumed() },
      }),
    },
    {
      // A new key per request: the container remembers a key's exhausted window and refuses its
      // next calls from memory, with no write (shared/keys/refusals-from-memory.ts).
      name: 'create_over_limit',
      operation: 'create-session',
      fn: 'create-session',
      status: 429,
      prepare: async () => {
        const request: BenchRequest = {
          method: 'POST',
          path: `${API_PATH}?action=create-session`,
          headers: { 'x-api-key': await limitedKey(stack) },
          body: CREATE_BODY,
        };
        // Not in a minute's last second: the measured call must fall in the minute this one used up.
        await untilInsideMinute(stack);
        expectStatus("create-session (the limited key's one call)", await http.send(request), 200);
        return request;
      },
    },
    {
      name: 'idempotent_replay',
      operation: 'create-session',
      fn: 'create-session',
      status: 200,
      prepare: async () => {
        const request: BenchRequest = {
          method: 'POST',
          path: `${API_PATH}?action=create-session`,
          headers: { 'x-api-key': apiKey, 'idempotency-key': `bench-replay-${process.pid}-${n++}` },
          body: CREATE_BODY,
        };
        expectStatus('create-session (first call)', await http.send(request), 200);
        return request;
      },
      done: (response) => {
        if (response.headers['idempotent-replayed'] !== 'true') throw new Error('idempotent_replay: the answer was not a replay');
      },
    },
    {
      // A new key per request, called once (the container has read it valid), then revoked: the
      // measured call runs ahead of its key's read and takes its writes back.
      name: 'create_revoked_ahead',
      operation: 'create-session',
      fn: 'create-session',
      status: 401,
      prepare: async () => {
        const { raw, record } = await newKey(stack, UNLIMITED_LIMITS);
        const request: BenchRequest = {
          method: 'POST',
          path: `${API_PATH}?action=create-session`,
          headers: { 'x-api-key': raw },
          body: CREATE_BODY,
        };
        expectStatus("create-session (the key's one call)", await http.send(request), 200);
        const { client } = stack.service.services;
        await client.send(new PutCommand({ TableName: stack.service.tableNames.keys, Item: { ...record, is_active: false } }));
        return request;
      },
    },
  ];
}

/** Limits no bench call meets. */
const UNLIMITED_LIMITS = { rate_limit_per_minute: 100_000, rate_limit_per_day: 100_000_000 } as const;

/** A new key of org 1 with these limits. */
async function newKey(
  stack: BenchStack,
  limits: { rate_limit_per_minute: number; rate_limit_per_day: number },
): Promise<{ raw: string; record: ApiKeyRecord }> {
  const s = stack.service.services;
  const raw = generateRawKey();
  const id = await new IdAllocator(s.stores.sequences, { sequence: 'key_id', blockSize: 1 }).nextId();
  const record = newKeyRecord(raw, id, { org_id: 1, tier: 'business' }, { name: 'bench-key', ...limits }, s.clock.now());
  await s.stores.keys.create(record);
  return { raw, record };
}

/** A key of org 1 allowing one call a minute (its day never the limit). */
async function limitedKey(stack: BenchStack): Promise<string> {
  return (await newKey(stack, { rate_limit_per_minute: 1, rate_limit_per_day: 100_000_000 })).raw;
}

/** Wait past a minute's last second, so that a call and the next one share their minute. */
async function untilInsideMinute(stack: BenchStack): Promise<void> {
  const intoMinute = stack.service.services.clock.now() % 60_000;
  if (intoMinute > 59_000) await new Promise((resolve) => setTimeout(resolve, 60_000 - intoMinute + 50));
}

function expectStatus(what: string, response: BenchResponse, status: number): void {
  if (response.status !== status)
    throw new Error(`${what} answered ${response.status} (expected ${status}): ${response.body.slice(0, 300)}`);
}

/** The section of the report: one row per case. */
export function renderRefusals(r: RefusalFigures, markdown: boolean): string[] {
  const title = `Refusals and replays on ${r.backend} (the reason returned with the refusal: ReturnValuesOnConditionCheckFailure)`;
  return [
    '',
    markdown ? `### ${title}` : `== ${title} ==`,
    '',
    ...table(
      markdown,
      ['case', 'what', 'stages', 'calls', 'RCU', 'WCU', 'stage 1 | stage 2 | ...'],
      [...r.byName].map(([name, f]) => [
        name,
        WHAT[name] ?? name,
        String(f.stages),
        String(f.calls),
        f.capacity.read.toFixed(1),
        f.capacity.write.toFixed(1),
        f.picture,
      ]),
    ),
  ];
}

/** The JSON line's part: `refusals` with the backend and each case's stages, calls and units. */
export function refusalsJson(r: RefusalFigures): Record<string, unknown> {
  const by = (pick: (f: StageFigures) => number) => Object.fromEntries([...r.byName].map(([name, f]) => [name, pick(f)]));
  return {
    refusals: {
      backend: r.backend,
      stages: by((f) => f.stages),
      calls: by((f) => f.calls),
      capacity_units: by((f) => round(f.capacity.read + f.capacity.write, 2)),
    },
  };
}
