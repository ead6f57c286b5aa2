/**
 * Representative requests of every operation of the routes table, each with the status it must
 * answer: a success and the refusals the other suites exercise. The OpenAPI status test
 * (test/integration/openapi-statuses.test.ts) requires each answered status to be documented.
 */
import { randomUUID } from 'node:crypto';
import type { AdminApi } from './admin-api.js';
import type { TestKey } from './keys.js';
import type { Stack } from './local-stack.js';
import { INITIALIZE, postMcp } from './mcp.js';
import { consume, startPlay, type Partner, type Target } from './play-pages.js';
import { API } from './sessions-api.js';
import { recordDeliveries } from './recording-queue.js';

/** A request ready to send (its state prepared): sending it answers a status. */
export type Send = () => Promise<number>;
/** One representative request of an operation: what it is, the status it must answer, and how to prepare it. */
export type Case = readonly [operation: string, label: string, status: number, prepare: () => Promise<Send>];

/** What the cases call with: a started stack, an admin, a key of org 1 (no MCP scope), an MCP key, a partner. */
export interface CaseEnv {
  readonly stack: Stack;
  readonly admin: AdminApi;
  readonly key: TestKey;
  readonly mcpKey: TestKey;
  readonly limitedKey: TestKey;
  readonly acme: Partner;
}

const json = (method: string, body: unknown, headers: Record<string, string> = {}): RequestInit => ({
  method,
  headers: { 'content-type': 'application/json', ...headers },
  body: JSON.stringify(body),
});
/** A request that needs no state prepared. */
const now = (send: Send) => async () => send;
const statusOf = (reply: Promise<{ status: number }>) => reply.then((r) => r.status);

/** Every operation's cases (a success first: the 503 sweep sends it). */
/** Past a due delivery's 15 minutes without an attempt: retried as stuck (shared/webhooks/schedule.ts, `STUCK_AFTER_MS`). */
const STUCK = 16 * 60_000;

export function operationCases(env: CaseEnv): readonly Case[] {
  const { stack, admin, acme } = env;
  const get = (path: string, init?: RequestInit) => statusOf(stack.request(path, init));
  const key = (raw = env.key.raw) => ({ 'x-api-key': raw });
  const post = (action: string, body: unknown, headers: Record<string, string> = {}) =>
    get(`${API}?action=${action}`, json('POST', body, headers));
  const mcp = (headers: Record<string, string> = {}, body: unknown = INITIALIZE) => statusOf(postMcp(stack, body, headers));
  const newKey = async () => (await admin.create({ org_id: 1, name: 'statuses' })).body.data.id as number;
  const today = new Date(stack.clock.now()).toISOString().slice(0, 10);
  const webhookBody = { org_id: 1, url: 'https://partner.example/hooks', events: ['*'] };
  const newWebhook = async () => (await admin.createWebhook(webhookBody)).body.data.id as number;
  /** The status of a webhook call, once the endpoint it made or named is deleted. */
  const cleaned = async (reply: ReturnType<AdminApi['createWebhook']>, id?: number) => {
    const res = await reply;
    const made = id ?? (res.status === 200 ? (res.body.data.id as number) : undefined);
    if (made !== undefined) await admin.deleteWebhook(made, 1);
    return res.status;
  };

  /** What `send` answers with a recording delivery queue in place of the stack's (nothing is delivered). */
  /** Run `call` with the stack's clock `ms` ahead, then put the clock back. */
  const later = async <T>(ms: number, call: () => Promise<T>): Promise<T> => {
    stack.clock.advance(ms);
    try {
      return await call();
    } finally {
      stack.clock.advance(-ms);
    }
  };
  const queued = async <T>(send: () => Promise<T>): Promise<T> => {
    const recording = recordDeliveries(stack);
    try {
      return await send();
    } finally {
      recording.restore();
    }
  };

  const minted = (target: Target = { game_id: 101 }) => acme.mint(target);
  const consumed = async (target: Target = { game_id: 101 }) => {
    const token = await minted(target);
    return { token, sessionId: await consume(stack, token) };
  };
  return [
    ['create-session', 'mint', 200, now(() => post('create-session', { game_id: 101 }, key()))],
    ['create-session', 'both ids', 400, now(() => post('create-session', { game_id: 101, stream_id: 201 }, key()))],
    ['create-session', 'no key', 401, now(() => post('create-session', { game_id: 101 }))],
    ['create-session', 'another org’s game', 403, now(() => post('create-session', { game_id: 301 }, key()))],
    [
      'create-session',
      'body over 64 KiB',
      413,
      now(() => post('create-session', { game_id: 101, external_ref: 'x'.repeat(70_000) }, key())),
    ],
    [
      'create-session',
      'query over 2 KiB',
      414,
      now(() => get(`${API}?action=create-session&x=${'y'.repeat(3000)}`, json('POST', {}, key()))),
    ],
    [
      'create-session',
      'Idempotency-Key reused with another body',
      422,
      async () => {
        const headers = { ...key(), 'idempotency-key': randomUUID() };
        await post('create-session', { game_id: 101 }, headers);
        return () => post('create-session', { game_id: 102 }, headers);
      },
    ],
    [
      'create-session',
      'a rate window exhausted',
      429,
      async () => {
        await post('create-session', { game_id: 101 }, key(env.limitedKey.raw));
        return () => post('create-session', { game_id: 101 }, key(env.limitedKey.raw));
      },
    ],
    [
      'validate-session',
      'active token',
      200,
      async () => {
        const token = await minted();
        return () => get(`${API}?action=validate-session&token=${token}`);
      },
    ],
    ['validate-session', 'malformed token', 400, now(() => get(`${API}?action=validate-session&token=nope`))],
    ['validate-session', 'unknown token', 404, now(() => get(`${API}?action=validate-session&token=${randomUUID()}`))],
    [
      'consume-session',
      'active token',
      200,
      async () => {
        const token = await minted();
        return () => post('consume-session', { token });
      },
    ],
    ['consume-session', 'malformed token', 400, now(() => post('consume-session', { token: 'nope' }))],
    ['consume-session', 'unknown token', 410, now(() => post('consume-session', { token: randomUUID() }))],
    [
      'revoke-session',
      'active token',
      200,
      async () => {
        const token = await minted();
        return () => post('revoke-session', { token }, key());
      },
    ],
    ['revoke-session', 'unknown token', 404, now(() => post('revoke-session', { token: randomUUID() }, key()))],
    [
      'revoke-session',
      'consumed token',
      410,
      async () => {
        const { token } = await consumed();
        return () => post('revoke-session', { token }, key());
      },
    ],
    ['mcp', 'initialize', 200, now(() => mcp(key(env.mcpKey.raw)))],
    ['mcp', 'not JSON-RPC', 400, now(() => mcp(key(env.mcpKey.raw), { hello: 1 }))],
    ['mcp', 'no key', 401, now(() => mcp())],
    ['mcp', 'a key without MCP scopes', 403, now(() => mcp(key()))],
    ['list-keys', 'own org', 200, now(() => statusOf(admin.list(1)))],
    ['list-keys', 'org_id missing', 400, now(() => statusOf(admin.list('')))],
    ['list-keys', 'another org', 403, now(() => statusOf(admin.list(2)))],
    ['create-key', 'create', 200, now(() => statusOf(admin.create({ org_id: 1, name: 'statuses' })))],
    ['create-key', 'no name', 400, now(() => statusOf(admin.create({ org_id: 1 })))],
    [
      'update-key',
      'rename',
      200,
      async () => {
        const id = await newKey();
        return () => statusOf(admin.update({ id, org_id: 1, name: 'renamed' }));
      },
    ],
    ['update-key', 'unknown key', 404, now(() => statusOf(admin.update({ id: 999_999, org_id: 1, name: 'x' })))],
    [
      'delete-key',
      'delete',
      200,
      async () => {
        const id = await newKey();
        return () => statusOf(admin.remove(id, 1));
      },
    ],
    ['delete-key', 'unknown key', 404, now(() => statusOf(admin.remove(999_999, 1)))],
    [
      'rotate-key',
      'rotate',
      200,
      async () => {
        const id = await newKey();
        return () => statusOf(admin.rotate({ id, org_id: 1, grace_period_minutes: 5 }));
      },
    ],
    ['rotate-key', 'unknown key', 404, now(() => statusOf(admin.rotate({ id: 999_999, org_id: 1, grace_period_minutes: 5 })))],
    [
      'rotate-key',
      'a key revoked by its rotation',
      409,
      async () => {
        const id = await newKey();
        await admin.rotate({ id, org_id: 1, grace_period_minutes: 0 });
        return () => statusOf(admin.rotate({ id, org_id: 1, grace_period_minutes: 5 }));
      },
    ],
    ['list-webhooks', 'own org', 200, now(() => statusOf(admin.listWebhooks(1)))],
    ['list-webhooks', 'another org', 403, now(() => statusOf(admin.listWebhooks(2)))],
    // Each success takes its endpoint away again: org 1 keeps room under its 20 whatever the cases are sent how often.
    ['create-webhook', 'create', 200, now(() => cleaned(admin.createWebhook(webhookBody)))],
    ['create-webhook', 'a private address', 400, now(() => statusOf(admin.createWebhook({ ...webhookBody, url: 'https://10.0.0.1/' })))],
    ['create-webhook', 'an editor', 403, now(() => statusOf(admin.createWebhook(webhookBody, 'acme-member')))],
    [
      'update-webhook',
      'pause',
      200,
      async () => {
        const id = await newWebhook();
        return () => cleaned(admin.updateWebhook({ id, org_id: 1, is_active: false }), id);
      },
    ],
    ['update-webhook', 'unknown endpoint', 404, now(() => statusOf(admin.updateWebhook({ id: 999_999, org_id: 1, is_active: false })))],
    [
      'delete-webhook',
      'delete',
      200,
      async () => {
        const id = await newWebhook();
        return () => statusOf(admin.deleteWebhook(id, 1));
      },
    ],
    ['delete-webhook', 'unknown endpoint', 404, now(() => statusOf(admin.deleteWebhook(999_999, 1)))],
    [
      'rotate-webhook-secret',
      'rotate',
      200,
      async () => {
        const id = await newWebhook();
        return () => cleaned(admin.rotateWebhookSecret({ id, org_id: 1 }), id);
      },
    ],
    ['rotate-webhook-secret', 'unknown endpoint', 404, now(() => statusOf(admin.rotateWebhookSecret({ id: 999_999, org_id: 1 })))],
    [
      'list-webhook-deliveries',
      'an endpoint’s',
      200,
      async () => {
        const id = await newWebhook();
        return () => cleaned(admin.listWebhookDeliveries({ org_id: 1, webhook_id: id }), id);
      },
    ],
    [
      'list-webhook-deliveries',
      'unknown endpoint',
      404,
      now(() => statusOf(admin.listWebhookDeliveries({ org_id: 1, webhook_id: 999_999 }))),
    ],
    [
      'test-webhook',
      'send',
      200,
      async () => {
        const id = await newWebhook();
        return () => queued(() => cleaned(admin.testWebhook({ id, org_id: 1 }), id));
      },
    ],
    ['test-webhook', 'unknown endpoint', 404, now(() => statusOf(admin.testWebhook({ id: 999_999, org_id: 1 })))],
    [
      'test-webhook',
      'a paused endpoint',
      409,
      async () => {
        const id = await newWebhook();
        await admin.updateWebhook({ id, org_id: 1, is_active: false });
        return () => cleaned(admin.testWebhook({ id, org_id: 1 }), id);
      },
    ],
    [
      'retry-webhook-delivery',
      'retry',
      200,
      async () => {
        const id = await newWebhook();
        const delivery = await queued(async () => (await admin.testWebhook({ id, org_id: 1 })).body.data.id as string);
        // Its message stays in the recording queue, never attempted: a delivery due for more than
        // 15 minutes counts as lost and may be retried (docs/decisions.md#webhook-hand-sends).
        return () =>
          queued(() =>
            cleaned(
              later(STUCK, () => admin.retryWebhookDelivery({ org_id: 1, delivery_id: delivery })),
              id,
            ),
          );
      },
    ],
    [
      'retry-webhook-delivery',
      'not a delivery id',
      400,
      now(() => statusOf(admin.retryWebhookDelivery({ org_id: 1, delivery_id: 'msg_x' }))),
    ],
    [
      'retry-webhook-delivery',
      'unknown delivery',
      404,
      now(() => statusOf(admin.retryWebhookDelivery({ org_id: 1, delivery_id: 'msg_999999_01JD8Y3W5Q7T0R6H1C2B3A4N5M' }))),
    ],
    [
      'retry-webhook-delivery',
      'a paused endpoint',
      409,
      async () => {
        const id = await newWebhook();
        const delivery = await queued(async () => (await admin.testWebhook({ id, org_id: 1 })).body.data.id as string);
        await admin.updateWebhook({ id, org_id: 1, is_active: false });
        return () => cleaned(admin.retryWebhookDelivery({ org_id: 1, delivery_id: delivery }), id);
      },
    ],
    [
      'recover-webhook',
      'recover',
      200,
      async () => {
        const id = await newWebhook();
        await queued(() => admin.testWebhook({ id, org_id: 1 }));
        const since = new Date(stack.clock.now() - 60 * 60_000).toISOString();
        return () => queued(() => cleaned(admin.recoverWebhook({ org_id: 1, id, since }), id));
      },
    ],
    [
      'recover-webhook',
      'until before since',
      400,
      now(() => statusOf(admin.recoverWebhook({ org_id: 1, id: 1, since: '2026-12-07T10:00:00Z', until: '2026-12-07T09:00:00Z' }))),
    ],
    [
      'recover-webhook',
      'unknown endpoint',
      404,
      now(() => statusOf(admin.recoverWebhook({ org_id: 1, id: 999_999, since: '2026-12-07T10:00:00Z' }))),
    ],
    [
      'recover-webhook',
      'a paused endpoint',
      409,
      async () => {
        const id = await newWebhook();
        await admin.updateWebhook({ id, org_id: 1, is_active: false });
        return () => cleaned(admin.recoverWebhook({ org_id: 1, id, since: '2026-12-07T10:00:00Z' }), id);
      },
    ],
    ['audit-log', 'own org', 200, now(() => statusOf(admin.audit({ org_id: 1, limit: 1 })))],
    ['audit-log', 'limit 0', 400, now(() => statusOf(admin.audit({ org_id: 1, limit: 0 })))],
    ['usage', 'today', 200, now(() => statusOf(admin.usage({ org_id: 1, from: today, to: today })))],
    ['usage', 'no range', 400, now(() => statusOf(admin.usage({ org_id: 1 })))],
    ['list-games', 'own org', 200, now(() => statusOf(admin.listGames(1)))],
    ['list-games', 'bad bearer', 401, now(() => get(`${API}?action=list-games&org_id=1`, { headers: { authorization: 'Bearer nope' } }))],
    ['update-game', 'rename', 200, now(() => statusOf(admin.updatePlayable('game', { org_id: 1, game_id: 101, name: 'Renamed' })))],
    ['update-game', 'unknown game', 404, now(() => statusOf(admin.updatePlayable('game', { org_id: 1, game_id: 999_999, name: 'x' })))],
    ['update-stream', 'rename', 200, now(() => statusOf(admin.updatePlayable('stream', { org_id: 1, stream_id: 201, name: 'Renamed' })))],
    [
      'update-stream',
      'unknown stream',
      404,
      now(() => statusOf(admin.updatePlayable('stream', { org_id: 1, stream_id: 999_999, name: 'x' }))),
    ],
    ['list-orgs', 'mine', 200, now(() => statusOf(admin.listOrgs()))],
    ['list-orgs', 'no bearer', 401, now(() => get(`${API}?action=list-orgs`))],
    ['openapi', 'document', 200, now(() => get('/api/openapi.json'))],
    ['openapi', 'query over 2 KiB', 414, now(() => get(`/api/openapi.json?x=${'y'.repeat(3000)}`))],
    // The deep check first: it is the one that reads DynamoDB.
    ['health', 'deep', 200, now(() => get('/api/health?deep=1'))],
    ['health', 'liveness', 200, now(() => get('/api/health'))],
    ['health', 'deep=2', 400, now(() => get('/api/health?deep=2'))],
    ...[
      ['play-game-page', '/play/game/101', '/play/game/999999', { game_id: 101 }],
      ['play-stream-page', '/play/stream/201', '/play/stream/999999', { stream_id: 201 }],
      ['game-page', '/game/101', '/game/999999', { game_id: 101 }],
      ['embed-page', '/embed/101', '/embed/999999', { game_id: 101 }],
      ['stream-page', '/stream/acme/201', '/stream/acme/999999', { stream_id: 201 }],
    ].flatMap(([operation, path, unknown, target]) => pageCases(operation as string, path as string, unknown as string, target as Target)),
    [
      'play-session',
      'an active token: consumed, with the cookie',
      200,
      async () => {
        const token = await minted();
        return () => statusOf(startPlay(stack, { token }));
      },
    ],
    ['play-session', 'malformed token', 400, now(() => statusOf(startPlay(stack, { token: 'nope' })))],
    [
      'play-session',
      'a used token',
      410,
      async () => {
        const { token } = await consumed();
        return () => statusOf(startPlay(stack, { token }));
      },
    ],
  ];

  /** A page's cases: an active token, a malformed one, none where one is required, an unknown page, a used token. */
  function pageCases(operation: string, path: string, unknown: string, target: Target): Case[] {
    return [
      [
        operation,
        'active token',
        200,
        async () => {
          const token = await minted(target);
          return () => get(`${path}?session_token=${token}`);
        },
      ],
      [operation, 'malformed token', 400, now(() => get(`${path}?session_token=nope`))],
      [operation, 'token required, none given', 403, now(() => get(path))],
      [operation, 'unknown page', 404, now(() => get(unknown))],
      [
        operation,
        'used token',
        410,
        async () => {
          const { token } = await consumed(target);
          return () => get(`${path}?session_token=${token}`);
        },
      ],
    ];
  }
}
