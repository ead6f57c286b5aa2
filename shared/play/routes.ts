/**
 * The play pages (HTML) and the page script's `/play/session`: six operations, one function
 * (`functions/play-page.ts`), since they share the page bundle and the play domain. Pages read the
 * catalog (the game or stream, and for the embed shape the org's allowed origins) and the token;
 * the page's own script consumes the token. Their answers are HTML (or 204): the OpenAPI document
 * describes them by their summary, their statuses and their input (the page function validates it
 * itself, `shared/play/play-requests.ts`).
 */
import { PageQuery, PlaySessionBody } from './schemas.js';
import { defineOperation, type DataAccess } from '../platform/route.js';

/** What a play page reads: the game or stream and the org (catalog), and the token. */
const PAGE_DATA = { catalog: ['GetItem'], tokens: ['GetItem'] } as const satisfies DataAccess;
/** What every play operation builds: the play part (pages, play passes and their cookie). */
const PLAY_PARTS = ['play'] as const;
/**
 * What a page answers besides 200 and those its query, path and data imply (400 malformed token,
 * 404 unknown game, stream or token, 503): 403 a token required but missing, or one for another
 * game or stream; 410 a token used, expired or revoked (`refusalError` in `shared/play/play.ts`).
 */
const PAGE_REFUSALS = [403, 410] as const;

/** What the five pages share: each adds its operation, path and summary. */
const PAGE = {
  function: 'play-page',
  data: PAGE_DATA,
  parts: PLAY_PARTS,
  method: 'GET',
  auth: 'none',
  capacity: 'play',
  query: PageQuery,
  errors: PAGE_REFUSALS,
} as const;

const playGamePage = defineOperation({
  operation: 'play-game-page',
  ...PAGE,
  path: '/play/game/{game_id}',
  summary: 'Canonical play page of a game (`session_token` when required)',
});

const playStreamPage = defineOperation({
  operation: 'play-stream-page',
  ...PAGE,
  path: '/play/stream/{stream_id}',
  summary: 'Canonical play page of a stream (`session_token` when required)',
});

const gamePage = defineOperation({
  operation: 'game-page',
  ...PAGE,
  path: '/game/{game_id}',
  summary: 'Game page of the service (`session_token` when required)',
});

const embedPage = defineOperation({
  operation: 'embed-page',
  ...PAGE,
  path: '/embed/{game_id}',
  summary: 'Game page without the service’s interface, for iframes (`session_token` when required)',
});

const streamPage = defineOperation({
  operation: 'stream-page',
  ...PAGE,
  path: '/stream/{org_slug}/{stream_id}',
  summary: 'Stream page of an organization (`session_token` when required)',
});

export const playSession = defineOperation({
  operation: 'play-session',
  function: 'play-page',
  // One conditional write counts the attempt and returns the token (a refusal returns it too: no read).
  data: { tokens: ['UpdateItem'] },
  parts: PLAY_PARTS,
  method: 'POST',
  path: '/play/session',
  auth: 'none',
  capacity: 'play',
  summary: 'Play page script: trade a session it has just consumed for the play cookie a refresh needs',
  body: PlaySessionBody,
  successStatus: 204,
  // 403: the token is not consumed, by another session, too long ago, or its attempts are used up; 404: unknown token.
  errors: [403, 404],
});

/** Every operation the play-page function serves, in the routes table's order. */
export const playPageOperations = [playGamePage, playStreamPage, gamePage, embedPage, streamPage, playSession] as const;
