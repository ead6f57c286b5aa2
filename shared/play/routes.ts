/**
 * The play pages (HTML) and the page script's `/play/session`: six operations, one function
 * (`functions/play-page.ts`), since they share the page bundle and the play domain. Pages read the
 * catalog (the game or stream, and for the embed shape the org's allowed origins) and the token;
 * the page's own script starts the play session, consuming the token and getting the play cookie
 * in one request. Pages answer HTML: the OpenAPI document describes them by their summary, their
 * statuses and their input (the page function validates it itself, `shared/play/play-requests.ts`).
 */
import { PageQuery, PlaySessionBody } from './schemas.js';
import { defineOperation, type DataAccess } from '../platform/route.js';
import { ConsumedSession } from '../sessions/index.js';

/** What a play page reads: the game or stream and the org (catalog), and the token. */
const PAGE_DATA = { catalog: ['GetItem'], tokens: ['GetItem'] } as const satisfies DataAccess;
/** What every play operation builds: the play part (pages, play passes and their cookie). */
const PLAY_PARTS = ['play'] as const;
/**
 * What a page answers besides 200 and those its query, path and data imply (400 malformed token,
 * 404 unknown game, stream or token, 503): 403 a token required but missing, one for another
 * game or stream, or one bound to a player; 410 a token used, expired or revoked (`refusalError` in `shared/play/play.ts`).
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

/**
 * The page script's one request: consume the page's token and set the play cookie in
 * the same answer, which carries the consumption's data (consume-session's answer). The partner
 * API's consume-session is unchanged beside it.
 */
export const playSession = defineOperation({
  operation: 'play-session',
  function: 'play-page',
  // consume-session's: one conditional UpdateItem of the token, and a session-id block reservation
  // on the counters once per 100 consumptions per container (`shared/sessions/services.ts`).
  data: { tokens: ['UpdateItem'], counters: ['UpdateItem'] },
  parts: [...PLAY_PARTS, 'sessionIds'],
  method: 'POST',
  path: '/play/session',
  auth: 'none',
  capacity: 'play',
  summary: 'Play page script: consume the page’s token and get the play cookie a refresh needs, in one request',
  body: PlaySessionBody,
  response: ConsumedSession,
  // Its refusals are pages like the pages' (the page function's pipeline); the script reads only their status.
  refusals: 'html',
  // 403: the token is bound to a player (the page names none); 410: the token is used (in this
  // browser too: a reload then resumes with the cookie), expired, revoked or unknown.
  errors: [403, 410],
});

/** Every operation the play-page function serves, in the routes table's order. */
export const playPageOperations = [playGamePage, playStreamPage, gamePage, embedPage, streamPage, playSession] as const;
