/** Session tools (mcp:sessions:write): the same rules, allow-lists and metering as the REST operations. */
import type { Playable } from '../../catalog/index.js';
import { CreateSessionArgs, CreateSessionResult, RevokeSessionArgs, RevokeSessionResult } from '../schemas.js';
import { scopeOfTool } from '../../keys/index.js';
import { baseUrl, defineTool } from '../tool.js';

/** create_session: mint a token and its play link. */
export const createSession = defineTool({
  name: 'create_session',
  title: 'Create a play session',
  description:
    'Mint a single-use session token for one game (game_id) or one stream (stream_id) of your organization, ' +
    'and get the play link to send a player to. Give exactly one of game_id or stream_id (not both, not neither). ' +
    'The link works once; it expires after expires_in_minutes ' +
    '(default 1440). Optional external_ref and metadata are returned when the session is consumed. ' +
    'With player_ref the token is bound to that player: only consume-session with that player_uuid consumes it, ' +
    'play pages refuse it, and no play link is returned.',
  scope: scopeOfTool('create_session'),
  input: CreateSessionArgs,
  output: CreateSessionResult,
  annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: false },
  // The game or stream is read alongside authentication, as REST does: two stages in all (one ahead of the key's read).
  prefetch: (args, services): Promise<Playable | undefined> => services.sessions.readTarget(args),
  async run(args, { key, call, services, meter, prefetched }) {
    const playable = await prefetched;
    const created = await meter.delegate((action) => services.sessions.create(key, args, call, action, playable));
    const page = created.game_id !== null ? `game/${created.game_id}` : `stream/${created.stream_id}`;
    const made = `Session for ${page.replace('/', ' ')} created, valid until ${created.expires_at}.`;
    // A page names no player, so it never plays a bound token: no link that could only be refused.
    if (args.player_ref !== null) {
      return { data: created, summary: `${made} Bound to its player: your app consumes it with that player_uuid.` };
    }
    const play_url = `${baseUrl(services)}/play/${page}?session_token=${created.token}`;
    return { data: { ...created, play_url }, summary: `${made} Play link (works once): ${play_url}` };
  },
});

/** revoke_session: cancel an active token. */
export const revokeSession = defineTool({
  name: 'revoke_session',
  title: 'Revoke a play session',
  description: 'Cancel an active session token of your organization, so that its play link no longer works.',
  scope: scopeOfTool('revoke_session'),
  input: RevokeSessionArgs,
  output: RevokeSessionResult,
  annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: false, openWorldHint: false },
  async run({ token }, { key, call, services, meter }) {
    const view = await meter.delegate((action) => services.sessions.revoke(key, token, call, action));
    return { data: view, summary: `Session ${token} is now ${view.status}.` };
  },
});
