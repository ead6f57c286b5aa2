/**
 * The MCP server's tools at /api/mcp through the SDK's own client (StreamableHTTPClientTransport,
 * the key in `requestInit.headers`): every tool's success and refusal paths — sessions (with their
 * play links, the REST allow-lists and org rules), games and streams, the session report — on the
 * key's own organization only. The protocol and scopes: server.test.ts.
 */
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { PLAY_CATALOG_STALENESS_MS } from '../../shared/sessions/playable-cache.js';
import { afterAll, beforeAll, describe, expect, test } from '@jest/globals';
import { auditOfKey, createTestKey, UNLIMITED, type TestKey } from '../support/keys.js';
import { startStack, type Stack } from '../support/local-stack.js';
import { callTool, connectMcp, textOf, TOOL_SCOPES } from '../support/mcp.js';
import { sessionsApi } from '../support/sessions-api.js';
import { stopAll } from '../support/teardown.js';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

let stack: Stack;
let all: TestKey;
let client: Client;
let api: ReturnType<typeof sessionsApi>;

beforeAll(async () => {
  stack = await startStack();
  all = await createTestKey(stack, { ...UNLIMITED, mcp_scopes: TOOL_SCOPES });
  client = await connectMcp(stack, all.raw);
  api = sessionsApi(stack, () => all.raw);
});
// Each step runs even when the one before fails (or never started): no server outlives the file.
afterAll(() =>
  stopAll(
    () => client?.close(),
    () => stack?.stop(),
  ),
);

describe('session tools', () => {
  test('create_session returns the token and a ready play link; the session is consumed through REST', async () => {
    const result = await callTool(client, 'create_session', { game_id: 101, external_ref: 'agent-1', metadata: { via: 'mcp' } });
    expect(result.isError).toBeFalsy();
    const data = result.structuredContent as Record<string, any>;
    expect(data).toMatchObject({ game_id: 101, stream_id: null, external_ref: 'agent-1' });
    expect(data.token).toMatch(UUID);
    expect(data.play_url).toBe(`${stack.baseUrl}/play/game/101?session_token=${data.token}`);
    expect(textOf(result)).toContain(data.play_url);

    // The play link opens the game (read-only validation), then the page's script consumes the token.
    const page = await stack.request(new URL(data.play_url).pathname + new URL(data.play_url).search);
    expect(page.status).toBe(200);
    const consumed = await api.consume({ token: data.token, player_uuid: 'p-1' });
    expect(consumed.status).toBe(200);
    expect(consumed.body.data).toMatchObject({ org_id: 1, game_id: 101, external_ref: 'agent-1', metadata: { via: 'mcp' } });
    expect((await api.consume({ token: data.token })).status).toBe(410);
  });

  test('create_session with player_ref binds the token to that player: no play link, only that player_uuid consumes it', async () => {
    const result = await callTool(client, 'create_session', { game_id: 101, player_ref: 'player-a' });
    expect(result.isError).toBeFalsy();
    const data = result.structuredContent as Record<string, any>;
    expect(data).toMatchObject({ game_id: 101, stream_id: null, token: expect.stringMatching(UUID) });
    // A play page names no player, so it never plays a bound token: there is no link to hand out.
    expect(data).not.toHaveProperty('play_url');
    expect(textOf(result)).toContain('Bound to its player');
    expect((await api.validate(data.token)).body.data).toMatchObject({ status: 'active', player_bound: true });
    const other = await api.consume({ token: data.token, player_uuid: 'player-b' });
    expect([other.status, other.body.code]).toEqual([403, 'player_mismatch']);
    expect((await api.consume({ token: data.token, player_uuid: 'player-a' })).status).toBe(200);
    // Its bounds are REST's: a tool error naming the field.
    const tooLong = await callTool(client, 'create_session', { game_id: 101, player_ref: 'p'.repeat(129) });
    expect(tooLong).toMatchObject({ isError: true });
    expect(textOf(tooLong)).toContain('player_ref');
  });

  test('create_session for a stream links the stream page', async () => {
    const result = await callTool(client, 'create_session', { stream_id: 201, expires_in_minutes: 5 });
    const data = result.structuredContent as Record<string, any>;
    expect(data.play_url).toBe(`${stack.baseUrl}/play/stream/201?session_token=${data.token}`);
    expect(Date.parse(data.expires_at) - stack.clock.now()).toBeLessThanOrEqual(5 * 60_000);
  });

  test('create_session keeps the REST allow-lists and org rules (tool errors, nothing minted)', async () => {
    const narrow = await createTestKey(stack, { ...UNLIMITED, mcp_scopes: ['mcp:sessions:write'], allowed_game_ids: [102] });
    const c = await connectMcp(stack, narrow.raw);
    const outside = await callTool(c, 'create_session', { game_id: 101 });
    expect(outside).toMatchObject({ isError: true });
    expect(textOf(outside)).toBe('This API key has no access to game 101');
    const otherOrg = await callTool(c, 'create_session', { stream_id: 401 });
    expect(textOf(otherOrg)).toBe('This API key has no access to stream 401');
    expect((await callTool(c, 'create_session', { game_id: 102 })).isError).toBeFalsy();
    const audit = await auditOfKey(stack, narrow.record.id);
    expect(
      audit
        .filter((r) => r.action === 'mcp:tools/call:create_session')
        .map((r) => r.status)
        .sort(),
    ).toEqual([200, 403, 403]);
    await c.close();
  });

  test.each([
    ['a string id', { game_id: 'abc' }],
    ['neither game nor stream', {}],
    ['both game and stream', { game_id: 101, stream_id: 201 }],
    ['a lifetime over 30 days', { game_id: 101, expires_in_minutes: 43_201 }],
    ['metadata that is not an object', { game_id: 101, metadata: 'x' }],
  ])('invalid arguments (%s) are a tool error, audited 400, and mint nothing', async (_case, args) => {
    const key = await createTestKey(stack, { ...UNLIMITED, mcp_scopes: ['mcp:sessions:write'] });
    const c = await connectMcp(stack, key.raw);
    const result = await callTool(c, 'create_session', args);
    expect(result.isError).toBe(true);
    expect(textOf(result)).toMatch(/Invalid arguments for tool create_session/);
    const audit = await auditOfKey(stack, key.record.id);
    expect(audit.filter((r) => r.action.startsWith('mcp:tools/call')).map((r) => [r.action, r.status])).toEqual([
      ['mcp:tools/call:create_session', 400],
    ]);
    await c.close();
  });

  test('revoke_session revokes an active token of the org; a second revoke and another org’s token are tool errors', async () => {
    const token = await api.mint({ game_id: 101 });
    const result = await callTool(client, 'revoke_session', { token: token.toUpperCase() });
    expect(result.isError).toBeFalsy();
    expect(result.structuredContent).toMatchObject({ valid: false, status: 'revoked', game_id: 101 });
    expect((await api.validate(token)).body.data.status).toBe('revoked');

    expect(textOf(await callTool(client, 'revoke_session', { token }))).toBe('Session is invalid, already consumed, or expired');
    const globex = await createTestKey(stack, UNLIMITED, { org_id: 2, tier: 'enterprise' });
    const theirs = await api.mint({ game_id: 301 }, globex.raw);
    expect(textOf(await callTool(client, 'revoke_session', { token: theirs }))).toBe('Session not found');
    expect((await api.validate(theirs)).body.data.status).toBe('active');
    expect(textOf(await callTool(client, 'revoke_session', { token: 'not-a-uuid' }))).toMatch(/Invalid arguments/);
  });
});

describe('game and stream tools: the key’s own organization only', () => {
  test('list_games and list_streams show the org’s own, with setting and play page', async () => {
    const games = await callTool(client, 'list_games');
    expect(games.structuredContent).toEqual({
      games: [
        { game_id: 101, name: 'Acme Spin-to-Win', require_session_token: true, start: null, play_url: `${stack.baseUrl}/play/game/101` },
        { game_id: 102, name: 'Acme Memory (open)', require_session_token: false, start: null, play_url: `${stack.baseUrl}/play/game/102` },
      ],
    });
    expect(textOf(games)).toContain('Game 101 "Acme Spin-to-Win": session token required, starts by page shape');
    const streams = await callTool(client, 'list_streams');
    expect((streams.structuredContent as any).streams.map((s: any) => s.stream_id)).toEqual([201, 202]);
  });

  test('get_game and get_stream', async () => {
    expect((await callTool(client, 'get_game', { game_id: 102 })).structuredContent).toMatchObject({
      game_id: 102,
      require_session_token: false,
    });
    expect((await callTool(client, 'get_stream', { stream_id: 201 })).structuredContent).toMatchObject({
      stream_id: 201,
      name: 'Acme Live Quiz',
      require_session_token: true,
    });
  });

  test.each([
    ['get_game', { game_id: 301 }, 'Game 301 not found'],
    ['get_game', { game_id: 999_999 }, 'Game 999999 not found'],
    ['get_stream', { stream_id: 401 }, 'Stream 401 not found'],
    ['update_game', { game_id: 301, require_session_token: false }, 'Game 301 not found'],
    ['update_stream', { stream_id: 401, name: 'mine now' }, 'Stream 401 not found'],
  ])('%s %p of another org reads like a missing one', async (tool, args, message) => {
    const result = await callTool(client, tool, args);
    expect(result.isError).toBe(true);
    expect(textOf(result)).toBe(message);
    expect(await stack.services.stores.catalog.getPlayable('game', 301)).toMatchObject({
      require_session_token: true,
      name: 'Globex Trivia',
    });
    expect(await stack.services.stores.catalog.getPlayable('stream', 401)).toMatchObject({ name: 'Globex Launch Stream' });
  });

  test('update_game flips "Require API Session Token": the play page follows within the staleness bound', async () => {
    const on = await callTool(client, 'update_game', { game_id: 102, require_session_token: true });
    expect(on.structuredContent).toMatchObject({ game_id: 102, require_session_token: true });
    stack.clock.advance(PLAY_CATALOG_STALENESS_MS);
    expect((await stack.request('/play/game/102')).status).toBe(403);
    const off = await callTool(client, 'update_game', { game_id: 102, require_session_token: false });
    expect(off.structuredContent).toMatchObject({ require_session_token: false });
    stack.clock.advance(PLAY_CATALOG_STALENESS_MS);
    expect((await stack.request('/play/game/102')).status).toBe(200);
  });

  test('update_stream sets how its pages start (`click`, then null: by page shape); the text says it', async () => {
    const click = await callTool(client, 'update_stream', { stream_id: 202, start: 'click' });
    expect(click.structuredContent).toMatchObject({ stream_id: 202, start: 'click', require_session_token: false });
    expect(textOf(click)).toContain('starts on a click on Play');
    expect((await stack.services.stores.catalog.getPlayable('stream', 202))?.start).toBe('click');
    const reset = await callTool(client, 'update_stream', { stream_id: 202, start: null });
    expect(reset.structuredContent).toMatchObject({ stream_id: 202, start: null });
    expect((await stack.services.stores.catalog.getPlayable('stream', 202))?.start).toBeUndefined();
  });

  test('update_stream renames; the other setting stays', async () => {
    const result = await callTool(client, 'update_stream', { stream_id: 202, name: 'Acme Open Stream (renamed)' });
    expect(result.structuredContent).toMatchObject({ stream_id: 202, name: 'Acme Open Stream (renamed)', require_session_token: false });
    expect(await stack.services.stores.catalog.getPlayable('stream', 202)).toMatchObject({ name: 'Acme Open Stream (renamed)' });
  });

  test.each([
    [{ game_id: 102 }, /give name, require_session_token or start/],
    [{ game_id: 102, name: '  ' }, /must not be blank/],
    [{ game_id: 102, name: 'x'.repeat(101) }, /Invalid arguments/],
    [{ game_id: 102, require_session_token: 'yes' }, /Invalid arguments/],
    [{ game_id: 102, start: 'sometimes' }, /Invalid arguments/],
  ])('update_game with invalid arguments %p is a tool error', async (args, message) => {
    const result = await callTool(client, 'update_game', args);
    expect(result.isError).toBe(true);
    expect(textOf(result)).toMatch(message);
    expect(await stack.services.stores.catalog.getPlayable('game', 102)).toMatchObject({ name: 'Acme Memory (open)' });
  });
});

// A key with allowed_game_ids [101] and allowed_stream_ids [] may not switch stream 201's "Require
// API Session Token" off through update_stream, nor read or change game 102. The allow-lists bound
// every tool (docs/decisions.md#scopes): lists show the allowed ones, any other is "no access".
describe('game, stream and session tools: the key’s allow-lists', () => {
  let narrow: TestKey;
  let c: Client;
  beforeAll(async () => {
    narrow = await createTestKey(stack, { ...UNLIMITED, mcp_scopes: TOOL_SCOPES, allowed_game_ids: [101], allowed_stream_ids: [] });
    c = await connectMcp(stack, narrow.raw);
  });
  afterAll(() => c?.close());

  test('list_games and list_streams show only the allowed ones ([] = none)', async () => {
    const games = await callTool(c, 'list_games');
    expect((games.structuredContent as any).games.map((g: any) => g.game_id)).toEqual([101]);
    expect(textOf(games)).not.toContain('102');
    const streams = await callTool(c, 'list_streams');
    expect(streams.structuredContent).toEqual({ streams: [] });
    expect(textOf(streams)).toBe('Your organization has no streams.');
  });

  test.each([
    ['get_game', { game_id: 102 }, 'This API key has no access to game 102'],
    ['update_game', { game_id: 102, name: 'taken over' }, 'This API key has no access to game 102'],
    ['get_stream', { stream_id: 201 }, 'This API key has no access to stream 201'],
    ['update_stream', { stream_id: 201, require_session_token: false }, 'This API key has no access to stream 201'],
  ])('%s %p outside the lists: the "no access" tool error, audited 403, nothing changed', async (tool, args, message) => {
    const result = await callTool(c, tool, args);
    expect(result.isError).toBe(true);
    expect(textOf(result)).toBe(message);
    expect(await stack.services.stores.catalog.getPlayable('game', 102)).toMatchObject({ name: 'Acme Memory (open)' });
    expect(await stack.services.stores.catalog.getPlayable('stream', 201)).toMatchObject({ require_session_token: true });
    const audit = await auditOfKey(stack, narrow.record.id);
    expect(audit.filter((r) => r.action === `mcp:tools/call:${tool}`).map((r) => r.status)).toContain(403);
  });

  test('the allowed game still answers', async () => {
    expect((await callTool(c, 'get_game', { game_id: 101 })).structuredContent).toMatchObject({ game_id: 101 });
    const same = await callTool(c, 'update_game', { game_id: 101, name: 'Acme Spin-to-Win' });
    expect(same.structuredContent).toMatchObject({ game_id: 101, name: 'Acme Spin-to-Win' });
  });

  test('revoke_session of a token outside the lists: "no access", the token stays active and undisclosed', async () => {
    const token = await api.mint({ stream_id: 201, external_ref: 'theirs' });
    const result = await callTool(c, 'revoke_session', { token });
    expect(result.isError).toBe(true);
    expect(textOf(result)).toBe("This API key has no access to this session's game or stream");
    expect(result.structuredContent).toBeUndefined();
    expect((await api.validate(token)).body.data.status).toBe('active');
  });
});

describe('report tool', () => {
  test('get_session_report answers for today (details in reports.test.ts)', async () => {
    // A mint of its own, so that today has one even when the run crossed midnight UTC since the others.
    expect((await callTool(client, 'create_session', { game_id: 101 })).isError).toBeFalsy();
    const today = new Date(stack.clock.now()).toISOString().slice(0, 10);
    const result = await callTool(client, 'get_session_report', { from: today, to: today });
    expect(result.isError).toBeFalsy();
    const report = result.structuredContent as any;
    expect(report.days).toHaveLength(1);
    expect(report.totals.created).toBeGreaterThan(0);
    expect(textOf(result)).toMatch(new RegExp(`^${today} to ${today}: \\d+ created`));
  });
});
