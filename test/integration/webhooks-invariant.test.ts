/**
 * The webhook pipeline's promises (docs/webhooks.md; decisions, "Webhooks" and "Fourth round"),
 * checked on random token lifecycles (fast-check, fixed seed) run through the whole local service
 * with its workers, on the backend of this tier (dynalite's stream stand-in, or DynamoDB Local's own
 * streams): tokens created through REST create-session and MCP `create_session` with every optional
 * field drawn from its whole range, then consumed (consume-session, the play page), revoked (REST,
 * MCP) or left to expire (the clock moved past their expiry, the due sweep run); calls refused after
 * writing ahead (a revoked key, a rate-limited key, an idempotent replay), whose tokens are taken
 * back. Org 1's endpoints take every filter and subscription (none, games, streams, both, empty,
 * nothing; `*` or a few types), one paused, one created through MCP by a key with allow-lists.
 *
 * After each batch of lifecycles has settled (every delivery attempted, retried when due), from
 * what each endpoint received (signatures checked with the stock `standardwebhooks` library) and
 * what the deliveries list stores:
 * - each consumed token made exactly one `session.consumed` per active endpoint that subscribes to
 *   it and whose filter passes its game or stream, with its data (metadata equal to the object
 *   given, external_ref, player_uuid, player_ref, key_id, game and stream); each revoked one `session.revoked`;
 *   each token left to expire one `session.expired`; and nothing else: no event outside a filter,
 *   none of another type for the token, none for a token no call handed out (taken back);
 * - the endpoint bound to its key gets key events of that key only;
 * - every delivery the endpoint received is stored `succeeded`, with at least as many attempts as
 *   arrived; none is left `pending` or `failed`, none stored that never arrived, none dead-lettered;
 * - the paused endpoint receives nothing and keeps each token's event as one `skipped` delivery;
 *   a delivery of an earlier batch may arrive again (at least once), but only with its own id.
 *
 * The same promises are then checked under load (hundreds of lifecycles, many calls at once) and
 * with faults: DynamoDB calls failing (throttled, network errors, timeouts after the write) and
 * the receiver failing attempts (500, a dropped connection, no answer within 15 s) before it
 * succeeds, the clock moved through the retry schedule. Replay a failure with
 * `INVARIANT_SEED=<seed>` (printed with the counterexample).
 */
import { afterAll, beforeAll, expect, test } from '@jest/globals';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import fc from 'fast-check';
import { randomUUID } from 'node:crypto';
import { describeWithStack } from '../support/describe-with-stack.js';
import { FaultRain } from '../support/faults.js';
import { addFigureLine } from '../support/figures.js';
import { createTestKey, roomInMinute, UNLIMITED, type TestKey } from '../support/keys.js';
import { callTool, connectMcp, textOf } from '../support/mcp.js';
import { startPlay } from '../support/play-pages.js';
import { stopAll } from '../support/teardown.js';
import { intersect, lifecycle, passes, type Filter, type Lifecycle } from '../support/webhook-lifecycles.js';
import { WebhookReceiver, type Answer, type Arrival } from '../support/webhook-receiver.js';

const BACKEND = process.env.DYNAMODB_BACKEND === 'local' ? 'DynamoDB Local' : 'dynalite';
/** Fixed so every run checks the same lifecycles; override to explore or to replay. */
const SEED = Number(process.env.INVARIANT_SEED ?? 20_261_128);
const MINUTE = 60_000;

/** The properties' sizes: batches (fast-check runs), lifecycles per batch, calls at once. */
const RUNS = {
  plain: { numRuns: 3, lifecycles: [15, 30], concurrency: 4 },
  load: { numRuns: 2, lifecycles: [80, 120], concurrency: 16 },
  faults: { numRuns: 2, lifecycles: [20, 30], concurrency: 6 },
} as const;

/** An endpoint of org 1 on the receiver. */
interface EndpointSpec {
  readonly name: string;
  readonly events: readonly string[];
  /** The filter sent at creation (absent: none). */
  readonly filter?: Filter;
  readonly paused?: boolean;
}

/** Every filter and subscription (the MCP one, bound to its key, is added in `beforeAll`). */
const ENDPOINTS: readonly EndpointSpec[] = [
  { name: 'all', events: ['*'] },
  { name: 'consumed', events: ['session.consumed'] },
  { name: 'games', events: ['session.revoked', 'session.expired'], filter: { game_ids: [101] } },
  { name: 'streams', events: ['*'], filter: { stream_ids: [202] } },
  { name: 'both', events: ['session.consumed', 'session.expired', 'key.updated'], filter: { game_ids: [102], stream_ids: [201] } },
  { name: 'open', events: ['*'], filter: {} },
  { name: 'nothing', events: ['*'], filter: { game_ids: [], stream_ids: [] } },
  { name: 'paused', events: ['*'], paused: true },
];

/** The key the MCP endpoint is created with: its allow-lists bound the endpoint's filter. */
const BOUND_KEY = { allowed_game_ids: [101, 102], allowed_stream_ids: [202] } as const;
/** The filter given when creating it; bound to the key, it takes 101 of the games and the key's streams. */
const BOUND_GIVEN: Filter = { game_ids: [101] };

/** An endpoint as created. */
interface Endpoint extends EndpointSpec {
  readonly id: number;
  /** The filter that applies (the MCP endpoint's: the given one within its key's allow-lists). */
  readonly effective: Filter | null;
  /** The key whose key events alone it receives (the MCP endpoint). */
  readonly boundTo?: number;
}

/** A token as its lifecycle ended. */
interface Outcome {
  readonly token: string;
  readonly lifecycle: Lifecycle;
  readonly created: {
    readonly game_id: number | null;
    readonly stream_id: number | null;
    readonly expires_at: string;
    readonly external_ref: string | null;
  };
  readonly keyId: number;
  readonly ended: 'consumed' | 'revoked' | 'expired';
  readonly sessionId?: number;
}

/** Calls refused after writing ahead: their tokens are taken back and must never be announced. */
type Refusal = 'revoked-key' | 'rate-limited' | 'replay';

/** One batch: its lifecycles and the refused calls among them. */
interface Batch {
  readonly lifecycles: readonly Lifecycle[];
  readonly refusals: readonly Refusal[];
}

const batch = (range: readonly [number, number]): fc.Arbitrary<Batch> =>
  fc.record({
    lifecycles: fc.array(lifecycle(), { minLength: range[0], maxLength: range[1] }),
    refusals: fc.subarray<Refusal>(['revoked-key', 'rate-limited', 'replay']),
  });

/** Jest's message without its terminal colours. */
const stripAnsi = (text: string) => text.replace(new RegExp(`${String.fromCharCode(27)}\\[\\d+m`, 'g'), '');

/** Whether an endpoint subscribes to a type. */
const subscribes = (endpoint: EndpointSpec, type: string) => endpoint.events.includes('*') || endpoint.events.includes(type);

/** Run `work` over `items`, `concurrency` at a time. */
async function pool<T, R>(items: readonly T[], concurrency: number, work: (item: T) => Promise<R>): Promise<R[]> {
  const results: R[] = [];
  let next = 0;
  await Promise.all(
    Array.from({ length: Math.min(concurrency, items.length) }, async () => {
      while (next < items.length) {
        const i = next++;
        results[i] = await work(items[i]!);
      }
    }),
  );
  return results;
}

describeWithStack(
  `webhooks invariant, on ${BACKEND}`,
  ({ stack, admin }) => {
    const receiver = new WebhookReceiver(() => stack.clock.now());
    let restKey: TestKey;
    let mcpKey: TestKey;
    let boundKey: TestKey;
    let mcp: Client;
    let boundMcp: Client;
    const endpoints: Endpoint[] = [];
    /** Every token a call handed out, over the file. */
    const handedOut = new Set<string>();
    /** The delivery ids each endpoint received for each token, over the file (`<endpoint> <token>`). */
    const deliveredIds = new Map<string, Set<string>>();
    /** Attempts that arrived again for a delivery of an earlier batch, after it had settled (at least once allows them). */
    let lateRepeats = 0;
    let faults: FaultRain;

    beforeAll(async () => {
      await receiver.start();
      faults = new FaultRain(stack.services.client);
      restKey = await createTestKey(stack, UNLIMITED);
      mcpKey = await createTestKey(stack, { ...UNLIMITED, mcp_scopes: ['mcp:sessions:write'] });
      boundKey = await createTestKey(stack, { ...UNLIMITED, ...BOUND_KEY, mcp_scopes: ['mcp:connections:write'] });
      mcp = await connectMcp(stack, mcpKey.raw);
      boundMcp = await connectMcp(stack, boundKey.raw);
      for (const spec of ENDPOINTS) {
        const body = { org_id: 1, url: receiver.url(spec.name), events: spec.events, ...(spec.filter ? { filter: spec.filter } : {}) };
        const created = await admin.createWebhook(body);
        expect({ spec: spec.name, status: created.status, body: created.body }).toMatchObject({ spec: spec.name, status: 200 });
        receiver.expect(spec.name, created.body.data.secret as string);
        if (spec.paused) expect((await admin.updateWebhook({ id: created.body.data.id, org_id: 1, is_active: false })).status).toBe(200);
        endpoints.push({ ...spec, id: created.body.data.id as number, effective: spec.filter ?? null });
      }
      const bound = await callTool(boundMcp, 'create_webhook', { url: receiver.url('bound'), events: ['*'], filter: BOUND_GIVEN });
      expect({ isError: bound.isError ?? false, text: textOf(bound) }).toMatchObject({ isError: false });
      const created = bound.structuredContent as { id: number; secret: string };
      receiver.expect('bound', created.secret);
      endpoints.push({
        name: 'bound',
        events: ['*'],
        id: created.id,
        effective: {
          game_ids: intersect(BOUND_GIVEN.game_ids, BOUND_KEY.allowed_game_ids),
          stream_ids: intersect(BOUND_GIVEN.stream_ids, BOUND_KEY.allowed_stream_ids),
        },
        boundTo: boundKey.record.id,
      });
      await stack.workers.settle();
    });
    afterAll(() =>
      stopAll(
        () => mcp?.close(),
        () => boundMcp?.close(),
        () => receiver.stop(),
      ),
    );

    /** Create a token as the lifecycle says; its answer's fields. */
    async function create(l: Lifecycle): Promise<Pick<Outcome, 'token' | 'created' | 'keyId'>> {
      const body = { ...l.target, ...l.fields };
      if (l.via === 'rest') {
        const reply = await stack.post('create-session', body, { 'x-api-key': restKey.raw });
        if (reply.status !== 200)
          throw new Error(`create-session ${JSON.stringify(body).slice(0, 300)} answered ${reply.status}: ${JSON.stringify(reply.body)}`);
        return { token: reply.body.data.token, created: reply.body.data, keyId: restKey.record.id };
      }
      const result = await callTool(mcp, 'create_session', body);
      if (result.isError) throw new Error(`create_session ${JSON.stringify(body).slice(0, 300)} failed: ${textOf(result)}`);
      const data = result.structuredContent as Outcome['created'] & { token: string };
      return { token: data.token, created: data, keyId: mcpKey.record.id };
    }

    /** The token's status as validate-session tells it. */
    const statusOf = async (token: string) =>
      (await stack.request(`/api/org-api-keys?action=validate-session&token=${token}`)).body.data?.status as string | undefined;

    /** One lifecycle: the token created, then ended as its fate says (one that expired meanwhile counts as expired). */
    async function live(l: Lifecycle): Promise<Outcome> {
      const made = await create(l);
      handedOut.add(made.token);
      const outcome = { ...made, lifecycle: l };
      let answer: { status: number; body: unknown; sessionId?: number };
      if (l.fate === 'expire') return { ...outcome, ended: 'expired' };
      if (l.fate === 'consume') {
        const reply = await stack.post('consume-session', { token: made.token, ...l.consume });
        answer = { ...reply, sessionId: reply.body?.data?.session_id };
      } else if (l.fate === 'play') {
        const reply = await startPlay(stack, { token: made.token });
        answer = { status: reply.status, body: reply.json, sessionId: reply.json?.data.session_id as number | undefined };
      } else if (l.via === 'mcp') {
        const result = await callTool(mcp, 'revoke_session', { token: made.token });
        answer = { status: result.isError ? 400 : 200, body: textOf(result) };
      } else {
        answer = await stack.post('revoke-session', { token: made.token }, { 'x-api-key': restKey.raw });
      }
      if (answer.status === 200) {
        return l.fate === 'revoke' ? { ...outcome, ended: 'revoked' } : { ...outcome, ended: 'consumed', sessionId: answer.sessionId };
      }
      // A token of a minute's life may have expired while the batch ran on a slow machine.
      if ((await statusOf(made.token)) === 'expired') return { ...outcome, ended: 'expired' };
      throw new Error(`${l.fate} of ${made.token} answered ${answer.status}: ${JSON.stringify(answer.body).slice(0, 300)}`);
    }

    /** A refused call that wrote ahead (its token taken back), and the lifecycles of the tokens its key did hand out. */
    async function refuse(kind: Refusal): Promise<Outcome[]> {
      const base: Lifecycle = {
        via: 'rest',
        target: { game_id: 101 },
        fields: { external_ref: `refused-${kind}` },
        fate: 'consume',
        consume: {},
      };
      const consumed = async (key: TestKey, token: string): Promise<Outcome> => {
        const reply = await stack.post('consume-session', { token });
        expect({ kind, status: reply.status }).toEqual({ kind, status: 200 });
        const view = (await stack.request(`/api/org-api-keys?action=validate-session&token=${token}`)).body.data;
        return { token, lifecycle: base, created: view, keyId: key.record.id, ended: 'consumed', sessionId: reply.body.data.session_id };
      };
      const mint = async (key: TestKey, headers: Record<string, string> = {}) => {
        const reply = await stack.post('create-session', { ...base.target, ...base.fields }, { 'x-api-key': key.raw, ...headers });
        return reply;
      };
      if (kind === 'replay') {
        // The replay writes a token ahead, finds the stored answer, takes the token back and answers the first token again.
        const idempotency = { 'idempotency-key': randomUUID() };
        const first = await mint(restKey, idempotency);
        const again = await mint(restKey, idempotency);
        expect({ kind, statuses: [first.status, again.status], same: again.body.data?.token === first.body.data?.token }).toEqual({
          kind,
          statuses: [200, 200],
          same: true,
        });
        handedOut.add(first.body.data.token);
        return [await consumed(restKey, first.body.data.token)];
      }
      const key = await createTestKey(stack, kind === 'rate-limited' ? { rate_limit_per_minute: 1, rate_limit_per_day: 1_000 } : UNLIMITED);
      roomInMinute(stack);
      // The first call reads the key valid: the next ones write ahead of their key's read.
      const warm = await mint(key);
      expect({ kind, status: warm.status }).toEqual({ kind, status: 200 });
      handedOut.add(warm.body.data.token);
      if (kind === 'revoked-key') expect((await admin.update({ id: key.record.id, org_id: 1, is_active: false })).status).toBe(200);
      for (let i = 0; i < 2; i++) {
        const refused = await mint(key);
        expect({ kind, status: refused.status }).toEqual({ kind, status: kind === 'rate-limited' ? 429 : 401 });
      }
      return [await consumed(key, warm.body.data.token)];
    }

    /**
     * Let everything the batch caused happen: the clock moved a minute at a time past the last
     * expiry and its 2-minute window, the scheduled workers run at each step, then every delivery
     * that waits (a retry, a turn in an endpoint's queue) run when due.
     */
    async function settleAll(lastExpiry: number): Promise<void> {
      await stack.workers.settle();
      while (stack.clock.now() < lastExpiry + 2.5 * MINUTE) {
        stack.clock.advance(MINUTE);
        await stack.workers.runScheduled();
      }
      const queue = stack.workers.queues['webhook-deliveries'];
      for (let round = 0; ; round++) {
        await stack.workers.settle();
        const due = queue.nextDueAt();
        if (due === undefined) return;
        if (round > 50) throw new Error(`deliveries still waiting after ${round} rounds (next due ${new Date(due).toISOString()})`);
        stack.clock.advance(Math.max(0, due - stack.clock.now()) + 1);
      }
    }

    /** An endpoint's stored deliveries made since `sinceIso`, newest first. */
    async function storedSince(endpoint: Endpoint, sinceIso: string): Promise<Record<string, any>[]> {
      const stored: Record<string, any>[] = [];
      let cursor: string | undefined;
      do {
        const page = await admin.listWebhookDeliveries({ org_id: 1, webhook_id: endpoint.id, limit: 100, ...(cursor ? { cursor } : {}) });
        expect(page.status).toBe(200);
        const deliveries = page.body.data.deliveries as Record<string, any>[];
        const recent = deliveries.filter((d) => d.created_at >= sinceIso);
        stored.push(...recent);
        cursor = recent.length === deliveries.length ? (page.body.data.next_cursor ?? undefined) : undefined;
      } while (cursor);
      return stored;
    }

    /** What a token's event must carry. */
    function expectedData(o: Outcome): Record<string, unknown> {
      const fields = o.lifecycle.fields;
      const common = {
        token: o.token,
        org_id: 1,
        game_id: o.created.game_id,
        stream_id: o.created.stream_id,
        external_ref: (fields.external_ref as string | null | undefined) ?? null,
        key_id: o.keyId,
      };
      if (o.ended === 'revoked') return { ...common, revoked_at: expect.any(String) };
      if (o.ended === 'expired') return { ...common, expires_at: o.created.expires_at };
      return {
        ...common,
        session_id: o.sessionId,
        player_uuid: (o.lifecycle.consume.player_uuid as string | null | undefined) ?? null,
        player_ref: (fields.player_ref as string | null | undefined) ?? null,
        consumed_at: expect.any(String),
      };
    }

    /** Every broken promise of a batch, as lines (none: all kept). */
    async function brokenPromises(outcomes: readonly Outcome[], arrivals: readonly Arrival[], sinceIso: string): Promise<string[]> {
      const broken: string[] = [];
      const byToken = new Map(outcomes.map((o) => [o.token, o]));
      for (const a of arrivals.filter((x) => !x.verified)) broken.push(`${a.endpoint}: ${a.webhookId} not verified: ${a.verifyError}`);
      for (const endpoint of endpoints) {
        const here = arrivals.filter((a) => a.endpoint === endpoint.name);
        const sessions = here.filter((a) => a.event?.type.startsWith('session.'));
        // What arrived, per token: its delivery ids and types.
        const got = new Map<string, Map<string, Arrival>>();
        for (const a of sessions) {
          const token = String(a.event!.data.token);
          if (!byToken.has(token)) {
            const earlier = deliveredIds.get(`${endpoint.name} ${token}`);
            if (earlier?.has(a.webhookId)) lateRepeats++;
            else if (handedOut.has(token))
              broken.push(`${endpoint.name}: a new delivery ${a.webhookId} of ${a.event!.type} for ${token} of an earlier batch`);
            else broken.push(`${endpoint.name}: ${a.event!.type} for a token no call handed out ${token}`);
            continue;
          }
          if (!got.has(token)) got.set(token, new Map());
          got.get(token)!.set(a.webhookId, a);
        }
        for (const o of outcomes) {
          const type = `session.${o.ended}`;
          const wanted = !endpoint.paused && subscribes(endpoint, type) && passes(endpoint.effective, o.created) ? 1 : 0;
          const deliveries = [...(got.get(o.token)?.values() ?? [])];
          deliveredIds.set(`${endpoint.name} ${o.token}`, new Set(deliveries.map((d) => d.webhookId)));
          const label = `${endpoint.name}: ${o.lifecycle.via} ${JSON.stringify(o.lifecycle.target)} token ${o.token} ${o.ended}`;
          if (deliveries.length !== wanted || deliveries.some((d) => d.event!.type !== type)) {
            const seen = deliveries.map((d) => `${d.event!.type} ${d.webhookId} at ${d.event!.timestamp}`);
            broken.push(`${label}: wanted ${wanted} ${type}, got ${seen.length}: ${seen.join('; ')}`);
            continue;
          }
          for (const d of deliveries) {
            const { metadata, ...data } = d.event!.data;
            try {
              expect(data).toMatchObject(expectedData(o));
              if (o.ended === 'consumed') expect(metadata).toEqual((o.lifecycle.fields.metadata as object | null | undefined) ?? null);
            } catch (error) {
              broken.push(`${label}: data ${stripAnsi((error as Error).message).slice(0, 800)}`);
            }
          }
        }
        if (endpoint.boundTo !== undefined) {
          for (const a of here.filter((x) => x.event?.type.startsWith('key.'))) {
            const keyId = a.event!.data.id ?? a.event!.data.key_id;
            if (keyId !== endpoint.boundTo)
              broken.push(`${endpoint.name}: ${a.event!.type} of key ${String(keyId)}, bound to ${endpoint.boundTo}`);
          }
        }
        // What is stored: every delivery of the batch settled, each one received, as many attempts as arrived.
        const stored = await storedSince(endpoint, sinceIso);
        const arrivedIds = new Map<string, number>();
        for (const a of here) arrivedIds.set(a.webhookId, (arrivedIds.get(a.webhookId) ?? 0) + 1);
        for (const d of stored) {
          if (endpoint.paused) {
            // Kept for a recovery, never attempted.
            if (d.status !== 'skipped' || d.attempts !== 0)
              broken.push(`${endpoint.name} (paused): ${d.id} ${d.event_type} stored ${d.status} after ${d.attempts} attempts`);
            continue;
          }
          if (d.status !== 'succeeded')
            broken.push(`${endpoint.name}: ${d.id} ${d.event_type} stored ${d.status} after ${d.attempts} attempts`);
          // Every attempt that reached the receiver is on record (an attempt claimed whose POST never left may be too).
          else if ((arrivedIds.get(d.id) ?? 0) > d.attempts || !arrivedIds.has(d.id))
            broken.push(`${endpoint.name}: ${d.id} ${d.event_type} stored ${d.attempts} attempts, ${arrivedIds.get(d.id) ?? 0} arrived`);
        }
        const storedIds = new Set(stored.map((d) => d.id as string));
        for (const id of arrivedIds.keys()) if (!storedIds.has(id)) broken.push(`${endpoint.name}: ${id} arrived but is not listed`);
        if (endpoint.paused && here.length > 0) broken.push(`paused: ${here.length} attempts arrived`);
        if (endpoint.paused) {
          // Every event it subscribes to is kept (docs/webhooks.md#recovery): one skipped delivery per token, of its type.
          const kept = new Map<string, string[]>();
          for (const d of stored) {
            const token = (d.payload as { data: { token?: string } }).data.token;
            if (token !== undefined) kept.set(token, [...(kept.get(token) ?? []), d.event_type as string]);
          }
          for (const o of outcomes) {
            const types = kept.get(o.token) ?? [];
            if (types.length !== 1 || types[0] !== `session.${o.ended}`)
              broken.push(`paused: token ${o.token} ${o.ended} kept as [${types.join(', ')}]`);
          }
        }
      }
      return broken;
    }

    /**
     * Run one batch and return its broken promises. `faulty`: DynamoDB faults fall while its calls
     * are made and its events settle (not on the checks' reads of the deliveries list).
     */
    async function runBatch(b: Batch, concurrency: number, faulty: { start(): void; stop(): void } | undefined): Promise<string[]> {
      const queue = stack.workers.queues['webhook-deliveries'];
      const deadBefore = queue.deadLettered().length;
      const from = receiver.arrivals.length;
      const sinceIso = new Date(stack.clock.now()).toISOString();
      // The bound key changes once: its endpoint gets that key.updated, and no other key's.
      faulty?.start();
      const boundChange = admin.update({ id: boundKey.record.id, org_id: 1, description: `batch at ${sinceIso}` });
      const [outcomes, refused] = await Promise.all([
        pool(b.lifecycles, concurrency, live),
        pool(b.refusals, 1, refuse).then((r) => r.flat()),
        boundChange.then((r) => expect(r.status).toBe(200)),
      ]).catch(async (error: unknown) => {
        // A call that failed ends the batch: what its other calls caused still settles, so the next batch starts clean.
        await settleAll(stack.clock.now() + 3 * MINUTE).finally(() => faulty?.stop());
        throw error;
      });
      const all = [...outcomes, ...refused];
      try {
        await settleAll(Math.max(0, ...all.filter((o) => o.ended === 'expired').map((o) => Date.parse(o.created.expires_at))));
      } finally {
        faulty?.stop();
      }
      const arrivals = receiver.arrivals.slice(from);
      const broken = await brokenPromises(all, arrivals, sinceIso);
      const boundUpdates = arrivals.filter((a) => a.endpoint === 'bound' && a.event?.type === 'key.updated');
      const updateIds = new Set(boundUpdates.map((a) => a.webhookId));
      if (updateIds.size !== 1) {
        const seen = boundUpdates.map((a) => `${a.webhookId} ${a.event!.timestamp} ${String(a.event!.data.description)}`);
        broken.push(`bound: ${updateIds.size} deliveries of key.updated of its key, wanted 1: ${seen.join('; ')}`);
      }
      const dead = queue.deadLettered().length - deadBefore;
      if (dead > 0) broken.push(`${dead} delivery messages dead-lettered`);
      return broken;
    }

    /** Check a property over `numRuns` batches; fails with the seed, the batch and the broken promises. */
    async function check(name: string, sizes: (typeof RUNS)[keyof typeof RUNS], offset: number, faulty?: { start(): void; stop(): void }) {
      const seed = SEED + offset;
      const started = Date.now();
      let lifecycles = 0;
      let batches = 0;
      const details = await fc.check(
        fc.asyncProperty(batch(sizes.lifecycles), async (b) => {
          lifecycles += b.lifecycles.length + b.refusals.length;
          batches++;
          const broken = await runBatch(b, sizes.concurrency, faulty);
          if (broken.length > 0) throw new Error(`${broken.length} broken promises:\n${broken.slice(0, 30).join('\n')}`);
        }),
        { seed, numRuns: sizes.numRuns, endOnFailure: true },
      );
      const seconds = ((Date.now() - started) / 1000).toFixed(1);
      addFigureLine(
        `webhooks invariant, ${name}, ${BACKEND}: ${lifecycles} lifecycles in ${batches} batches, seed ${seed}, ${seconds} s` +
          ` (attempts repeated after their batch settled, so far: ${lateRepeats})`,
      );
      if (details.failed) {
        const cause = details.errorInstance instanceof Error ? details.errorInstance.message : String(details.errorInstance);
        throw new Error(
          `${name}: failed at batch ${details.numRuns} (seed ${seed}, path ${details.counterexamplePath}; replay with INVARIANT_SEED=${SEED}): ` +
            `${cause.slice(0, 6000)}\ncounterexample: ${JSON.stringify(details.counterexample)?.slice(0, 3000)}`,
        );
      }
    }

    test('the MCP endpoint is bound to its key: its filter is the one given within the key’s allow-lists', async () => {
      const listed = (await admin.listWebhooks(1)).body.data as Record<string, any>[];
      const bound = listed.find((w) => w.id === endpoints.at(-1)!.id);
      expect(bound?.filter).toEqual(endpoints.at(-1)!.effective);
    });

    test(
      'every lifecycle makes exactly its events, at every endpoint its filter and subscription admit, and each is stored succeeded',
      () => check('lifecycles', RUNS.plain, 0),
      // Bounds for a machine shared with other work; the figures line prints what a run took.
      600_000,
    );

    test('under load: hundreds of lifecycles, many calls at once, and the same promises hold', () => check('load', RUNS.load, 1), 240_000);

    test('with faults: DynamoDB calls failing and receivers failing attempts before they succeed, the same promises hold', async () => {
      let batchNo = 0;
      // Some attempts fail (500, a dropped connection, rarely none within 15 s), the next one succeeds; by the delivery id.
      receiver.plan = (webhookId) => {
        let h = SEED;
        for (const c of webhookId) h = (Math.imul(h, 31) + c.charCodeAt(0)) >>> 0;
        const plans: (readonly Answer[])[] = [[], [], ['error'], ['drop'], ['error', 'drop'], ['drop', 'error']];
        return h % 199 === 0 ? ['hang'] : plans[h % plans.length]!;
      };
      try {
        await check('faults', RUNS.faults, 2, {
          start: () => faults.start(0.03, SEED + ++batchNo, ['webhooks']),
          stop: () => faults.stop(),
        });
      } finally {
        receiver.plan = () => [];
        addFigureLine(`webhooks invariant, faults, ${BACKEND}: DynamoDB faults injected ${JSON.stringify(faults.injected)}`);
      }
      expect(faults.injected.throttle + faults.injected.network + faults.injected.timeout).toBeGreaterThan(0);
    }, 300_000);
  },
  { workers: true },
);
