/**
 * The deployed MCP bundle against a real DynamoDB: `POST /api/mcp` served by the `mcp` function
 * exactly as CDK builds it, and Powertools' idempotency (`Idempotency-Key`) inside the `mcp` and
 * `create-session` bundles, against an embedded DynamoDB (dynalite) seeded by the local run's own
 * helpers, in a child Node process per configuration (see `test/support/bundled.ts`).
 *
 * What only the bundles can break, and what this proves they do not:
 * - esbuild aliases replace `ajv`, `ajv-formats`, `zod/v3` and `zod-to-json-schema` with a stand-in
 *   that throws when reached (`infra/bundle/mcp-unused.ts`). Every path a client takes here
 *   (initialize, the initialized notification, tools/list with each tool's JSON Schemas, tools/call
 *   with output validation, a refused tool, an idempotent tool call and its replay) must not reach
 *   it; tools/list must publish the very schemas the unbundled server does (zod 4's converter and
 *   its metadata registry, bundled once).
 * - Minified without `keepNames`: Powertools' idempotency errors are recognized by their `name`
 *   (`IdempotencyValidationError`: 422), the SDK's conditional failure by its wire name (a claim
 *   already taken: the stored answer is replayed).
 * - The conditional writes (the claim, the token's put) are real ones, evaluated by the store.
 *
 * The steps of one run, in order (one child process per configuration, every bundle imported once;
 * `test/support/bundle-mcp-steps.ts`): initialize (x-api-key), notifications/initialized, tools/list
 * (Authorization: Bearer), create_session and the bundled validate-session of its token; a key with
 * only some scopes lists its tools and calls one outside them; create_session with an
 * `Idempotency-Key`, the same again, the same key with other arguments; then REST create-session
 * with the same `Idempotency-Key` (another namespace), again, and with another body. The recording
 * proxy notes which step made each DynamoDB call.
 */
import { afterAll, beforeAll, describe, expect, test } from '@jest/globals';
import { ScanCommand } from '@aws-sdk/lib-dynamodb';
import { LATEST_PROTOCOL_VERSION } from '@modelcontextprotocol/sdk/types.js';
import { DEMO_MCP_KEY, DEMO_PLAYABLES, ensureDemoKey, seedCatalog } from '../../infra/local/seed.js';
import { hashApiKey } from '../../shared/keys/credential.js';
import type { McpScope } from '../../shared/keys/mcp-scopes.js';
import type { Reply } from '../support/bundled-child.js';
import { runMcp, unbundledTools } from '../support/bundle-mcp-steps.js';
import { CONFIGURATIONS, startBundledService, type BundledService } from '../support/bundled.js';
import type { DynamoCall } from '../support/recording-proxy.js';
import { ALL_TOOLS } from '../support/mcp.js';

/** The functions the runs call. */
const FUNCTIONS = ['mcp', 'create-session', 'validate-session'] as const;
/** Where play links point (the environment's `PUBLIC_BASE_URL`: the bundle must read it). */
const PUBLIC_BASE_URL = 'https://play.bundle-mcp.test';
/** The scopes of the limited key: the session tools and reading games, not changing them. */
const LIMITED_SCOPES: McpScope[] = ['mcp:sessions:write', 'mcp:games:read'];

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
const REUSED = 'Idempotency-Key was already used with a different request body';

/** A game of the keys' org (acme) that requires a token, and an open one. */
const game = DEMO_PLAYABLES.find((p) => p.kind === 'game' && p.org_id === 1 && p.require_session_token)!;
const openGame = DEMO_PLAYABLES.find((p) => p.kind === 'game' && p.org_id === 1 && !p.require_session_token)!;

let service: BundledService | undefined;
/** The demo MCP key (every scope this service has tools for), and one with {@link LIMITED_SCOPES}. */
let fullKey: string;
let limitedKey: string;
let fullKeyId: number;

beforeAll(async () => {
  service = await startBundledService({ label: 'mcp', functions: FUNCTIONS });
  // The seed, written by the local run's own (unbundled) helpers into the same tables.
  ({ fullKey, limitedKey, fullKeyId } = await service.withServices(async (s) => {
    await seedCatalog(s);
    const full = await ensureDemoKey(s, undefined, DEMO_MCP_KEY);
    const limited = await ensureDemoKey(s, undefined, { name: 'Limited MCP key', mcp_scopes: LIMITED_SCOPES });
    return { fullKey: full, limitedKey: limited, fullKeyId: (await s.stores.keys.getByHash(hashApiKey(full)))!.id };
  }));
}, 60_000);

afterAll(async () => {
  await service?.close();
});

/**
 * The JSON-RPC result of an MCP answer: 200, JSON, addressed to `id`, and no JSON-RPC error (shown
 * whole when there is one: a stand-in reached in the bundle answers `-32603` with its message).
 */
function resultOf(reply: Reply | undefined, id: number): any {
  expect(reply?.body?.error).toBeUndefined();
  expect(reply).toMatchObject({ status: 200, headers: { 'content-type': expect.stringMatching(/^application\/json/) } });
  expect(reply!.body).toMatchObject({ jsonrpc: '2.0', id, result: expect.any(Object) });
  return reply!.body.result;
}

describe.each(CONFIGURATIONS)('bundled MCP function, $configuration configuration', ({ configuration, env, signedWith }) => {
  let steps: Record<string, Reply>;
  let traffic: DynamoCall[];
  /** The calls a step made. */
  const of = (step: string) => traffic.filter((c) => c.step === step);
  /** Token items written (successful puts) by a step. */
  const tokenPuts = (step: string) => of(step).filter((c) => c.table === service!.tableNames.tokens && c.operation === 'PutItem');
  /** The token items of the run with this external_ref, read from the store. */
  const storedWithRef = (ref: string) =>
    service!.withServices(async (s) => {
      const { Items = [] } = await s.client.send(
        new ScanCommand({
          TableName: service!.tableNames.tokens,
          ConsistentRead: true,
          FilterExpression: 'external_ref = :ref',
          ExpressionAttributeValues: { ':ref': ref },
        }),
      );
      return Items;
    });

  beforeAll(async () => {
    const from = service!.calls.length;
    steps = await runMcp(
      service!,
      configuration,
      { ...env(service!), PUBLIC_BASE_URL },
      { fullKey, limitedKey, gameId: game.id, openGameId: openGame.id },
    );
    traffic = service!.calls.slice(from);
  }, 30_000);

  test('initialize: 200 JSON, the server names itself, no session id; the initialized notification: 202', () => {
    expect(resultOf(steps.initialize, 1)).toMatchObject({
      protocolVersion: LATEST_PROTOCOL_VERSION,
      serverInfo: { name: 'game-session-token-service' },
      capabilities: { tools: expect.any(Object) },
      instructions: expect.stringMatching(/organization of the API key/),
    });
    expect(steps.initialize!.headers['mcp-session-id']).toBeUndefined();
    expect(steps.initialized).toMatchObject({ status: 202, body: '' });
  });

  test('tools/list (Authorization: Bearer): every tool, with exactly the JSON Schemas the unbundled server publishes', async () => {
    const tools = resultOf(steps.list, 2).tools as { name: string; inputSchema: any; outputSchema: any }[];
    expect(tools.map((t) => t.name)).toEqual(ALL_TOOLS);
    for (const tool of tools) {
      expect(tool.inputSchema).toMatchObject({ type: 'object', properties: expect.any(Object) });
      expect(tool.outputSchema).toMatchObject({ type: 'object', properties: expect.any(Object), required: expect.any(Array) });
    }
    const create = tools.find((t) => t.name === 'create_session')!;
    expect(Object.keys(create.inputSchema.properties)).toEqual(
      expect.arrayContaining(['game_id', 'stream_id', 'external_ref', 'metadata', 'expires_in_minutes', 'player_ref']),
    );
    // A token bound to a player has no play link (a play page cannot consume it): play_url is optional.
    expect(create.outputSchema.required).toEqual(expect.arrayContaining(['token', 'expires_at']));
    expect(Object.keys(create.outputSchema.properties)).toContain('play_url');
    expect(tools).toEqual(await unbundledTools(DEMO_MCP_KEY.mcp_scopes as McpScope[]));
  });

  test('tools/call create_session: a token and its play link; the bundled validate-session reads it active, the store holds it', async () => {
    const result = resultOf(steps.created, 3);
    expect(result.isError).toBeUndefined();
    expect(result.content).toEqual([{ type: 'text', text: expect.stringContaining(result.structuredContent.play_url) }]);
    const token = result.structuredContent.token as string;
    expect(result.structuredContent).toEqual({
      token: expect.stringMatching(UUID),
      game_id: game.id,
      stream_id: null,
      expires_at: expect.any(String),
      external_ref: `${configuration}-mcp-order`,
      play_url: `${PUBLIC_BASE_URL}/play/game/${game.id}?session_token=${token}`,
    });
    expect(steps.validated).toMatchObject({
      status: 200,
      body: {
        success: true,
        data: {
          valid: true,
          status: 'active',
          game_id: game.id,
          external_ref: `${configuration}-mcp-order`,
          metadata: { source: 'bundle-mcp' },
        },
      },
    });
    const stored = await service!.withServices((s) => s.stores.tokens.get(token));
    expect(stored).toMatchObject({ token, org_id: 1, key_id: fullKeyId, game_id: game.id, status: 'active' });
    expect(tokenPuts('created')).toHaveLength(1);
  });

  test('a key with only some scopes: tools/list shows their tools; a tool outside them is refused naming the scope, nothing changed', async () => {
    const tools = resultOf(steps.limitedList, 4).tools as { name: string }[];
    expect(tools.map((t) => t.name)).toEqual(['create_session', 'revoke_session', 'list_games', 'get_game']);
    expect(tools).toEqual(await unbundledTools(LIMITED_SCOPES));
    expect(resultOf(steps.outOfScope, 5)).toEqual({
      isError: true,
      content: [{ type: 'text', text: 'update_game requires the MCP scope mcp:games:write, which this API key does not have' }],
    });
    expect(of('outOfScope').filter((c) => c.table === service!.tableNames.catalog && c.operation === 'UpdateItem')).toEqual([]);
    const stored = await service!.withServices((s) => s.stores.catalog.getPlayable('game', openGame.id));
    expect(stored?.require_session_token).toBe(false);
  });

  /** A replay's calls on the tokens, counters and audit tables, by table: what it wrote ahead and took back. */
  const writtenAndTakenBack = (step: string) => {
    const { tokens, counters, audit } = service!.tableNames;
    return Object.fromEntries(
      [tokens, counters, audit].map((table) => [
        table.replace(/^.*-/, ''),
        of(step)
          .filter((c) => c.table === table)
          .map((c) => c.operation),
      ]),
    );
  };
  const TAKEN_BACK = { tokens: ['PutItem', 'DeleteItem'], counters: ['UpdateItem', 'UpdateItem'], audit: ['PutItem', 'DeleteItem'] };

  test('create_session with an Idempotency-Key, twice: the stored answer replayed (same token, re-addressed, marked), one token written; other arguments: 422', async () => {
    expect(resultOf(steps.mcpFirst, 6)).toMatchObject({
      structuredContent: { token: expect.stringMatching(UUID), game_id: game.id, external_ref: `${configuration}-mcp-idem` },
    });
    expect(steps.mcpFirst!.headers['idempotent-replayed']).toBeUndefined();
    const token = steps.mcpFirst!.body.result.structuredContent.token as string;
    expect(resultOf(steps.mcpReplay, 7)).toEqual(steps.mcpFirst!.body.result);
    expect(steps.mcpReplay!.headers['idempotent-replayed']).toBe('true');
    expect(steps.mcpReplay!.body).toEqual({ ...steps.mcpFirst!.body, id: 7 });
    // The first call claimed the key and wrote one token; the replay took back what it wrote ahead of
    // its key's read (docs/decisions.md#create-session-in-one-stage): no token, count or audit record stays.
    expect(tokenPuts('mcpFirst')).toHaveLength(1);
    expect(writtenAndTakenBack('mcpReplay')).toEqual(TAKEN_BACK);
    expect(await storedWithRef(`${configuration}-mcp-idem`)).toEqual([expect.objectContaining({ token })]);
    expect(steps.mcpOther).toMatchObject({ status: 422, body: { success: false, error: REUSED } });
    // Other arguments: the token written ahead is deleted again (the call is counted and audited with its 422).
    expect(
      of('mcpOther')
        .filter((c) => c.table === service!.tableNames.tokens)
        .map((c) => c.operation),
    ).toEqual(['PutItem', 'DeleteItem']);
  });

  test('REST create-session with an Idempotency-Key, twice: same token, replay header, one token written; another body: 422', async () => {
    // The same Idempotency-Key as the MCP calls: keys are kept per operation, so this one is new.
    expect(steps.restFirst).toMatchObject({ status: 200, body: { success: true, data: { token: expect.stringMatching(UUID) } } });
    expect(steps.restFirst!.headers['idempotent-replayed']).toBeUndefined();
    const token = steps.restFirst!.body.data.token as string;
    expect(token).not.toBe(steps.mcpFirst!.body.result.structuredContent.token);
    expect(steps.restReplay).toMatchObject({ status: 200, headers: { 'idempotent-replayed': 'true' } });
    expect(steps.restReplay!.body).toEqual(steps.restFirst!.body);
    expect(tokenPuts('restFirst')).toHaveLength(1);
    expect(writtenAndTakenBack('restReplay')).toEqual(TAKEN_BACK);
    expect(await storedWithRef(`${configuration}-rest-idem`)).toEqual([expect.objectContaining({ token })]);
    expect(steps.restOther).toMatchObject({ status: 422, body: { success: false, error: REUSED } });
    expect(
      of('restOther')
        .filter((c) => c.table === service!.tableNames.tokens)
        .map((c) => c.operation),
    ).toEqual(['PutItem', 'DeleteItem']);
  });

  test('every DynamoDB call reached the store, signed with the configuration’s credentials and region; only claims were refused', () => {
    expect(traffic.length).toBeGreaterThan(20);
    for (const call of traffic) {
      expect(call).toMatchObject({ ...signedWith, table: expect.stringMatching(/^mcp-/) });
    }
    // The only failures: a replayed or reused Idempotency-Key's claim (a conditional put) is taken already.
    const failed = traffic.filter((c) => c.status !== 200);
    expect(failed.map((c) => [c.step, c.table, c.operation, c.error])).toEqual(
      ['mcpReplay', 'mcpOther', 'restReplay', 'restOther'].map((step) => [
        step,
        service!.tableNames.idempotency,
        'PutItem',
        'ConditionalCheckFailedException',
      ]),
    );
  });
});
