/**
 * Games and streams as members see them: the fields and rules the MCP catalog tools and the REST
 * operations (list-games, update-game, update-stream) share, so both paths answer one shape and
 * refuse the same input.
 */
import * as z from 'zod/mini';
import { Id, QueryId, withMeta } from '../platform/schemas.js';
import { START_MODES } from './model.js';

/** The play page, ready to open. */
export const PlayUrl = withMeta(z.url(), { description: 'The play page, ready to open.' });

/** A new name of a game or stream. */
const PlayableName = z.string().check(
  z.minLength(1),
  z.maxLength(100),
  z.refine((s) => s.trim() !== '', 'must not be blank'),
);
const RequireSessionToken = withMeta(z.boolean(), {
  description: 'The "Require API Session Token" setting: when true, the play page needs a session token.',
});

const Start = withMeta(z.nullable(z.enum(START_MODES)), {
  description:
    'How a play page that consumes a token starts the game: `click` on the player’s click or key press on its Play button (a link ' +
    'scanner that runs the page’s script consumes nothing), `auto` as soon as the page’s script runs. null: by page shape, `auto` ' +
    'for `/embed/<id>` and `click` for the others (docs/play-pages.md#starting-the-game). An update with null goes back to that.',
});

/** A game's or stream's fields beside its id. */
export const PlayableFields = {
  name: z.string(),
  require_session_token: RequireSessionToken,
  start: Start,
  play_url: withMeta(PlayUrl, { description: 'The canonical play page (add `?session_token=` when a token is required).' }),
};
/** What an update may change: its name, its "Require API Session Token" setting, how its pages start; one or more. */
export const PlayableChanges = {
  name: withMeta(z.optional(PlayableName), { description: 'New name, 1 to 100 characters.' }),
  require_session_token: z.optional(RequireSessionToken),
  start: z.optional(Start),
};
/** An update that changes nothing is refused (a misspelt property must not look like success). */
export const someChange = z.refine<{ name?: unknown; require_session_token?: unknown; start?: unknown }>(
  (args) => args.name !== undefined || args.require_session_token !== undefined || args.start !== undefined,
  { message: 'give name, require_session_token or start (one or more)' },
);

export const GameView = withMeta(z.object({ game_id: Id, ...PlayableFields }), { id: 'Game' });
export const StreamView = withMeta(z.object({ stream_id: Id, ...PlayableFields }), { id: 'Stream' });

/** list-games: the organization's games and streams (any member). */
export const ListGamesQuery = z.object({ org_id: QueryId });
export const GamesAndStreams = withMeta(z.object({ games: z.array(GameView), streams: z.array(StreamView) }), {
  id: 'GamesAndStreams',
});

/** update-game: one game of the organization (owners, admins, editors). */
export const UpdateGameBody = withMeta(z.strictObject({ org_id: Id, game_id: Id, ...PlayableChanges }).check(someChange), {
  id: 'UpdateGameRequest',
});

/** update-stream: one stream of the organization (owners, admins, editors). */
export const UpdateStreamBody = withMeta(z.strictObject({ org_id: Id, stream_id: Id, ...PlayableChanges }).check(someChange), {
  id: 'UpdateStreamRequest',
});
