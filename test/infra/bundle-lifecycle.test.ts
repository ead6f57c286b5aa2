/**
 * The deployed bundles against a real DynamoDB: the session lifecycle (create, validate, consume,
 * consume again, revoke, refused key) run by the `create-session`, `validate-session`,
 * `consume-session` and `revoke-session` bundles exactly as CDK builds them, against an embedded
 * DynamoDB (dynalite) seeded by the local run's own helpers.
 *
 * What only the bundles can break, and what this proves they do not:
 * - They are minified without `keepNames`: class and function names are mangled, so anything that
 *   recognizes an error by a constructor's name would fail silently. The SDK's
 *   `ConditionalCheckFailedException` must still be told apart by its `name` from the wire (a second
 *   consume, a consume or a revoke of a revoked token: 410), and domain errors by theirs (401, 410).
 * - esbuild aliases swap parts of the SDK and Node for stand-ins (`infra/bundle/`): the credential
 *   chain for the environment alone, `node:http` for the built-in module without an ES namespace,
 *   the SDK's event-stream support for nothing, its endpoint cache and SHA-256 for smaller ones, and
 *   the JMESPath interpreter for the idempotency store's two expressions. The clients below are built and call DynamoDB with
 *   them in place; in the `lambda` configuration the credentials come from the stand-in.
 * - The conditional writes are real ones, evaluated by the store, not by a fake.
 *
 * The bundles run in a child Node process per configuration, as a Lambda container would, each
 * handler given API Gateway HTTP API (payload v2) events built as the local front builds them:
 * - `lambda`: the environment of a deployed function (no `DYNAMODB_ENDPOINT`: the client AWS
 *   uses, with its request timeouts, region from `AWS_REGION` and credentials from the
 *   environment through the stand-in), pointed at dynalite by the SDK's standard
 *   `AWS_ENDPOINT_URL_DYNAMODB`.
 * - `local`: `DYNAMODB_ENDPOINT` set, the client of the local run (fixed local credentials).
 * A recording proxy between the bundles and dynalite shows what each call really sent and got: the
 * credentials and region it was signed with, and the conditional failures the 410s came from.
 */
import { afterAll, beforeAll, describe, expect, test } from '@jest/globals';
import { DEMO_PLAYABLES, ensureDemoKey, seedCatalog } from '../../infra/local/seed.js';
import { generateRawKey } from '../../shared/keys/api-keys.js';
import { API_PATH } from '../../shared/platform/route.js';
import { routedTarget, runBundled, type Reply } from '../support/bundled-child.js';
import { CONFIGURATIONS, startBundledService, type BundledService } from '../support/bundled.js';
import type { DynamoCall } from '../support/recording-proxy.js';

/** The operations of the lifecycle; each is served by the function of the same name. */
const OPERATIONS = ['create-session', 'validate-session', 'consume-session', 'revoke-session'] as const;

/** A session token (a UUID). */
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
const GONE = { success: false, error: 'Session is invalid, already consumed, or expired' };

/**
 * The bundles, dynalite and the recording proxy. Physical table names unlike the logical ones
 * (`lifecycle-<name>`): the bundles must take them from the environment.
 */
let service: BundledService | undefined;
let apiKey: string;
/** A game of the key's org (acme) that requires a token. */
const game = DEMO_PLAYABLES.find((p) => p.kind === 'game' && p.org_id === 1 && p.require_session_token)!;
/** A stream of the same org. */
const stream = DEMO_PLAYABLES.find((p) => p.kind === 'stream' && p.org_id === 1)!;

beforeAll(async () => {
  service = await startBundledService({ label: 'lifecycle', functions: OPERATIONS });
  // The seed, written by the local run's own (unbundled) helpers into the same tables.
  apiKey = await service.withServices(async (s) => {
    await seedCatalog(s);
    return ensureDemoKey(s, undefined);
  });
}, 60_000);

afterAll(async () => {
  await service?.close();
});

describe.each(CONFIGURATIONS)('bundled session lifecycle, $configuration configuration', ({ env, signedWith }) => {
  let steps: Record<string, Reply>;
  let traffic: DynamoCall[];

  beforeAll(async () => {
    const from = service!.calls.length;
    steps = await runLifecycle(env(service!));
    traffic = service!.calls.slice(from);
  }, 30_000);

  test('create-session mints a token for the seeded game (200)', () => {
    expect(steps.created).toMatchObject({ status: 200, headers: { 'content-type': expect.stringContaining('application/json') } });
    expect(steps.created!.body).toEqual({
      success: true,
      data: {
        token: expect.stringMatching(UUID),
        game_id: game.id,
        stream_id: null,
        expires_at: expect.any(String),
        external_ref: 'order-1',
      },
    });
    // Metered: the key's rate-limit counters were written and read back.
    expect(steps.created!.headers.ratelimit).toMatch(/^"minute";r=\d+;t=\d+$/);
  });

  test('validate-session reads it as valid and active (200)', () => {
    expect(steps.validated).toMatchObject({ status: 200 });
    expect(steps.validated!.body).toEqual({
      success: true,
      data: {
        valid: true,
        status: 'active',
        game_id: game.id,
        stream_id: null,
        expires_at: steps.created!.body.data.expires_at,
        external_ref: 'order-1',
        metadata: { source: 'bundle-lifecycle' },
        player_bound: false,
      },
    });
  });

  test('consume-session consumes it once (200), then refuses it (410) and it reads as consumed', () => {
    expect(steps.consumed).toMatchObject({ status: 200 });
    expect(steps.consumed!.body).toEqual({
      success: true,
      data: {
        session_id: expect.any(Number),
        org_id: 1,
        game_id: game.id,
        stream_id: null,
        external_ref: 'order-1',
        metadata: { source: 'bundle-lifecycle' },
      },
    });
    expect(steps.consumed!.body.data.session_id).toBeGreaterThan(0);
    expect(steps.consumedAgain).toMatchObject({ status: 410, body: GONE });
    expect(steps.validatedConsumed).toMatchObject({ status: 200, body: { success: true, data: { valid: false, status: 'consumed' } } });
  });

  test('revoke-session revokes an active token (200); it then validates as revoked, and neither consumes nor revokes (410)', () => {
    expect(steps.second).toMatchObject({ status: 200, body: { success: true, data: { stream_id: stream.id, game_id: null } } });
    expect(steps.revoked).toMatchObject({ status: 200 });
    expect(steps.revoked!.body).toEqual({
      success: true,
      data: {
        valid: false,
        status: 'revoked',
        game_id: null,
        stream_id: stream.id,
        expires_at: steps.second!.body.data.expires_at,
        external_ref: null,
        metadata: null,
        player_bound: false,
      },
    });
    expect(steps.validatedRevoked).toMatchObject({ status: 200, body: { success: true, data: { valid: false, status: 'revoked' } } });
    expect(steps.consumedRevoked).toMatchObject({ status: 410, body: GONE });
    expect(steps.revokedAgain).toMatchObject({ status: 410, body: GONE });
  });

  test('create-session with a well-formed key that was never issued: 401', () => {
    expect(steps.unknownKey).toMatchObject({ status: 401, body: { success: false, error: 'Invalid API key' } });
  });

  test('every DynamoDB call reached the store, signed with the configuration’s credentials and region', () => {
    expect(traffic.length).toBeGreaterThan(10);
    for (const call of traffic) {
      expect(call).toMatchObject({ ...signedWith, table: expect.stringMatching(/^lifecycle-/) });
    }
    // Every call succeeded but the conditional writes the 410s came from (none throttled, none failed otherwise).
    const failed = traffic.filter((c) => c.status !== 200);
    expect(failed.every((c) => c.error === 'ConditionalCheckFailedException')).toBe(true);
  });

  test('an Idempotency-Key: the answer given again, another body under the same key refused (422): the idempotency store’s JMESPath forms in the stand-in', () => {
    expect(steps.idempotent!.status).toBe(200);
    expect(steps.replayed).toMatchObject({ status: 200, headers: { 'idempotent-replayed': 'true' } });
    expect(steps.replayed!.body).toEqual(steps.idempotent!.body);
    expect(steps.keyReused!.status).toBe(422);
  });

  test('the 410s are the token store’s conditional writes failing: second consume, consume and revoke of a revoked token', () => {
    const refusedTokenWrites = traffic.filter((c) => c.table === service!.tableNames.tokens && c.error !== undefined);
    expect(refusedTokenWrites).toEqual([
      expect.objectContaining({ operation: 'UpdateItem', error: 'ConditionalCheckFailedException' }),
      expect.objectContaining({ operation: 'UpdateItem', error: 'ConditionalCheckFailedException' }),
      expect.objectContaining({ operation: 'UpdateItem', error: 'ConditionalCheckFailedException' }),
    ]);
  });
});

/**
 * Run the lifecycle in one fresh Node process with the given environment: every bundle imported
 * once (one container each, warm after its first call), each step a handler call.
 */
async function runLifecycle(env: Record<string, string>): Promise<Record<string, Reply>> {
  // The event routing as the local front (and the edge rewrite) applies it: public path and `?action=`.
  const targets = Object.fromEntries(
    OPERATIONS.map((operation) => {
      const method = operation === 'validate-session' ? 'GET' : 'POST';
      const target = routedTarget(service!.bundles, method, API_PATH, operation);
      if (target.function !== operation) throw new Error(`${method} ${operation} is not routed to its function`);
      return [operation, target];
    }),
  );
  return runBundled<Record<string, Reply>>(LIFECYCLE_SCRIPT, {
    env,
    service: service!,
    targets,
    label: 'lifecycle',
    input: { apiKey, unknownKey: generateRawKey(), gameId: game.id, streamId: stream.id },
  });
}

/** The child's script (after the shared prelude: `input`, `invoke`, `done`). */
const LIFECYCLE_SCRIPT = `
  const call = (operation, { query, body, apiKey } = {}) =>
    invoke(operation, { query, body, headers: apiKey === undefined ? {} : { 'x-api-key': apiKey } });

  const steps = {};
  const metadata = { source: 'bundle-lifecycle' };
  steps.created = await call('create-session', { apiKey: input.apiKey, body: { game_id: input.gameId, external_ref: 'order-1', metadata } });
  const token = steps.created.body.data?.token;
  steps.validated = await call('validate-session', { query: { token } });
  steps.consumed = await call('consume-session', { body: { token, player_uuid: 'player-1' } });
  steps.consumedAgain = await call('consume-session', { body: { token } });
  steps.validatedConsumed = await call('validate-session', { query: { token } });
  steps.second = await call('create-session', { apiKey: input.apiKey, body: { stream_id: input.streamId } });
  const second = steps.second.body.data?.token;
  steps.revoked = await call('revoke-session', { apiKey: input.apiKey, body: { token: second } });
  steps.validatedRevoked = await call('validate-session', { query: { token: second } });
  steps.consumedRevoked = await call('consume-session', { body: { token: second } });
  steps.revokedAgain = await call('revoke-session', { apiKey: input.apiKey, body: { token: second } });
  steps.unknownKey = await call('create-session', { apiKey: input.unknownKey, body: { game_id: input.gameId } });
  const idempotent = { 'x-api-key': input.apiKey, 'idempotency-key': 'bundle-lifecycle-' + Math.random() };
  steps.idempotent = await invoke('create-session', { body: { game_id: input.gameId }, headers: idempotent });
  steps.replayed = await invoke('create-session', { body: { game_id: input.gameId }, headers: idempotent });
  steps.keyReused = await invoke('create-session', { body: { stream_id: input.streamId }, headers: idempotent });
  done(steps);
`;
