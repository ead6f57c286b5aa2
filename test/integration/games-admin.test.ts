/**
 * list-games, update-game, update-stream: org members read their games and streams (every role)
 * and owners, admins and editors change them (bearer), through the MCP catalog tools' domain, each
 * change audited with the member's subject and its before and after values.
 */
import { afterAll, beforeAll, describe, expect, test } from '@jest/globals';
import { adminApi, type AdminApi } from '../support/admin-api.js';
import { createTestKey, UNLIMITED, type TestKey } from '../support/keys.js';
import { startStack, type Stack } from '../support/local-stack.js';
import { failure } from '../support/sessions-api.js';

let stack: Stack;
let admin: AdminApi;
beforeAll(async () => {
  stack = await startStack();
  admin = adminApi(stack);
  await stack.services.stores.catalog.putMember(1, 'acme-owner', 'owner');
});
afterAll(() => stack.stop());

let partner: TestKey | undefined;
/** A key of org 1 that mints for the play pages' checks. */
const partnerKey = async () => (partner ??= await createTestKey(stack, UNLIMITED));

const base = () => stack.baseUrl.replace(/\/+$/, '');
const game = (id: number, name: string, required: boolean) => ({
  game_id: id,
  name,
  require_session_token: required,
  start: null,
  play_url: `${base()}/play/game/${id}`,
});
const stream = (id: number, name: string, required: boolean) => ({
  stream_id: id,
  name,
  require_session_token: required,
  start: null,
  play_url: `${base()}/play/stream/${id}`,
});
const auditOf = async (action: string) =>
  (await admin.audit({ org_id: 1, audit_action: action })).body.data.records as Record<string, unknown>[];

describe('list-games', () => {
  test.each(['acme-owner', 'acme-admin', 'acme-member', 'acme-analyst', 'acme-viewer'])(
    '%s (any member) lists games and streams',
    async (as) => {
      const res = await admin.listGames(1, as);
      expect(res.status).toBe(200);
      expect(res.body).toEqual({
        success: true,
        data: {
          games: [game(101, 'Acme Spin-to-Win', true), game(102, 'Acme Memory (open)', false)],
          streams: [stream(201, 'Acme Live Quiz', true), stream(202, 'Acme Open Stream', false)],
        },
      });
    },
  );

  test('an outsider is refused (403) and learns nothing; no bearer is 401', async () => {
    const res = await admin.listGames(1, 'globex-admin');
    expect(res.status).toBe(403);
    expect(res.body).toEqual(failure('You are not a member of organization 1'));
    expect((await stack.request('/api/org-api-keys?action=list-games&org_id=1')).status).toBe(401);
  });

  test('any tier: a free org lists its games', async () => {
    const res = await admin.listGames(3, 'tiny-admin');
    expect(res.status).toBe(200);
    expect(res.body.data).toEqual({ games: [game(501, 'Tiny Puzzle', false)], streams: [] });
  });

  test.each([['x'], ['0'], ['']])('org_id %p is 400 with the envelope', async (orgId) => {
    const res = await admin.listGames(orgId);
    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({ success: false, code: 'invalid_input', param: 'org_id' });
  });
});

describe('update-game and update-stream', () => {
  test('an admin turns a game’s session token off: the answer, the list and the audit record (before and after) say so', async () => {
    const res = await admin.updatePlayable('game', { org_id: 1, game_id: 101, require_session_token: false });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ success: true, data: game(101, 'Acme Spin-to-Win', false) });
    expect((await admin.listGames(1)).body.data.games[0]).toEqual(game(101, 'Acme Spin-to-Win', false));
    const [record] = await auditOf('update-game');
    expect(record).toMatchObject({
      action: 'update-game',
      status: 200,
      actor: 'acme-admin',
      key_id: null,
      game_id: 101,
      stream_id: null,
      changes: ['require_session_token'],
      diff: { require_session_token: { before: true, after: false } },
      request_id: res.headers.get('x-request-id'),
    });
  });

  test('the play page follows: a game that needs no token plays without one', async () => {
    stack.clock.advance(6_000); // past the play page's 5-second view of the game
    expect((await stack.request('/play/game/101')).status).toBe(200);
    await admin.updatePlayable('game', { org_id: 1, game_id: 101, require_session_token: true });
    stack.clock.advance(6_000);
    expect((await stack.request('/play/game/101')).status).not.toBe(200);
  });

  test('start: `auto` and `click` hold on every page shape, null gives each shape its default back; audited, 400 for another value', async () => {
    const token = async () => {
      const key = await stack.post('create-session', { game_id: 101 }, { 'x-api-key': (await partnerKey()).raw });
      return key.body.data.token as string;
    };
    /** Whether a fresh token's page at `path` waits for Play (`click`) rather than starting at once (`auto`). */
    const waitsForPlay = async (path: string) => {
      stack.clock.advance(6_000); // past the play page's 5-second view of the game
      return (await stack.request(`${path}?session_token=${await token()}`)).body.includes('id="play-start"');
    };
    const shapes = async () => ({
      play: await waitsForPlay('/play/game/101'),
      game: await waitsForPlay('/game/101'),
      embed: await waitsForPlay('/embed/101'),
    });
    expect(await shapes()).toEqual({ play: true, game: true, embed: false });

    const auto = await admin.updatePlayable('game', { org_id: 1, game_id: 101, start: 'auto' });
    expect(auto.body).toEqual({ success: true, data: { ...game(101, 'Acme Spin-to-Win', true), start: 'auto' } });
    expect(await shapes()).toEqual({ play: false, game: false, embed: false });
    expect(await auditOf('update-game')).toContainEqual(
      expect.objectContaining({ changes: ['start'], diff: { start: { before: null, after: 'auto' } } }),
    );
    expect((await admin.updatePlayable('game', { org_id: 1, game_id: 101, start: 'click' })).status).toBe(200);
    expect(await shapes()).toEqual({ play: true, game: true, embed: true });
    const reset = await admin.updatePlayable('game', { org_id: 1, game_id: 101, start: null });
    expect(reset.body.data).toEqual(game(101, 'Acme Spin-to-Win', true));
    expect((await stack.services.stores.catalog.getPlayable('game', 101))?.start).toBeUndefined();
    expect(await shapes()).toEqual({ play: true, game: true, embed: false });

    const refused = await admin.updatePlayable('game', { org_id: 1, game_id: 101, start: 'sometimes' });
    expect(refused.status).toBe(400);
    expect(refused.body).toMatchObject({ success: false, code: 'invalid_input', param: 'start' });
  });

  test('an editor renames a stream; only the changed field is in the record', async () => {
    const res = await admin.updatePlayable(
      'stream',
      { org_id: 1, stream_id: 202, name: 'Renamed', require_session_token: false },
      'acme-member',
    );
    expect(res.status).toBe(200);
    expect(res.body.data).toEqual(stream(202, 'Renamed', false));
    const [record] = await auditOf('update-stream');
    expect(record).toMatchObject({
      actor: 'acme-member',
      stream_id: 202,
      changes: ['name', 'require_session_token'],
      diff: { name: { before: 'Acme Open Stream', after: 'Renamed' } },
    });
  });

  test.each(['acme-analyst', 'acme-viewer', 'globex-admin'])(
    '%s may not change a game (403 naming who may), and nothing changes',
    async (as) => {
      const res = await admin.updatePlayable('game', { org_id: 1, game_id: 102, name: 'Nope' }, as);
      expect(res.status).toBe(403);
      expect(res.body.error).toMatch(
        as === 'globex-admin' ? /^You are not a member/ : /^Only owners, admins and editors of the organization may change/,
      );
      expect((await admin.listGames(1)).body.data.games[1].name).toBe('Acme Memory (open)');
    },
  );

  test('another org’s game or a missing one is 404 (audited with the id asked for)', async () => {
    for (const id of [301, 999_999]) {
      const res = await admin.updatePlayable('game', { org_id: 1, game_id: id, name: 'Mine' });
      expect(res.status).toBe(404);
      expect(res.body).toEqual(failure(`Game ${id} not found`));
    }
    const records = await auditOf('update-game');
    expect(records.slice(0, 2).map((r) => [r.status, r.game_id, r.diff])).toEqual([
      [404, 999_999, null],
      [404, 301, null],
    ]);
  });

  test('below Business a change is refused (403 tier)', async () => {
    const res = await admin.updatePlayable('game', { org_id: 3, game_id: 501, require_session_token: true }, 'tiny-admin');
    expect(res.status).toBe(403);
    expect(res.body.code).toBe('tier_required');
  });

  test.each([
    [{ org_id: 1, game_id: 102 }, undefined],
    [{ org_id: 1, game_id: 102, requireSessionToken: false }, 'requireSessionToken'],
    [{ org_id: 1, game_id: 102, require_session_token: 'no' }, 'require_session_token'],
    [{ org_id: 1, game_id: 102, name: '  ' }, 'name'],
    [{ game_id: 102, name: 'x' }, 'org_id'],
    [{ org_id: 1, stream_id: 201, name: 'x' }, 'game_id'],
  ])('a bad body %p is 400 with the envelope', async (body, param) => {
    const res = await admin.updatePlayable('game', body);
    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({ success: false, code: 'invalid_input', request_id: expect.any(String) });
    if (param) expect(res.body.param).toBe(param);
  });
});
