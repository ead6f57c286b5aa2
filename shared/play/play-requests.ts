/**
 * The play-page function's requests: the five page shapes onto the play domain and back to HTML,
 * and the script's one request that consumes the page's token and sets the play cookie.
 */
import type { APIGatewayProxyStructuredResultV2 } from 'aws-lambda';
import type { Playable } from '../catalog/index.js';
import type { IssuedPass, PlayPages } from './play.js';
import type { Env } from '../platform/env.js';
import { playPageOperations, playSession } from './routes.js';
import { QueryId } from '../platform/schemas.js';
import { PlaySessionBody } from './schemas.js';
import { htmlResponse, page, type PageInput } from '../platform/http/page-pipeline.js';
import { jsonResponse } from '../platform/http/answers.js';
import { playView, type PageShape } from './play-views.js';
import { parseWith } from '../platform/http/pipeline.js';
import { playServices } from './services.js';

/** The name of an operation of the play-page function. */
type PlayOperation = (typeof playPageOperations)[number]['operation'];

/** What the play-page requests use of the function's services. */
export interface PlayRequestServices {
  readonly env: Pick<Env, 'PUBLIC_BASE_URL'>;
  readonly play: PlayPages;
}

/** Which game or stream each page operation addresses (path parameter), and whether it is the embed shape. */
const SHAPES: Partial<Record<PlayOperation, PageShape & { readonly idParam: 'game_id' | 'stream_id' }>> = {
  'play-game-page': { kind: 'game', idParam: 'game_id', embed: false },
  'play-stream-page': { kind: 'stream', idParam: 'stream_id', embed: false },
  'game-page': { kind: 'game', idParam: 'game_id', embed: false },
  'embed-page': { kind: 'game', idParam: 'game_id', embed: true },
  'stream-page': { kind: 'stream', idParam: 'stream_id', embed: false },
};

const ENDPOINTS = { sessionUrl: playSession.path };

/** Serve one request of the play-page function. */
async function servePlay(input: PageInput<PlayRequestServices>): Promise<APIGatewayProxyStructuredResultV2> {
  const { route, params, query, cookies, body, services } = input;
  const secure = new URL(services.env.PUBLIC_BASE_URL).protocol === 'https:';
  const shape = SHAPES[route.operation as PlayOperation];
  if (!shape) {
    // POST /play/session: the consumption's answer (consume-session's envelope), and the cookie of its session.
    const request = parseWith(PlaySessionBody, body, 'body');
    const { session, issued } = await services.play.start(request.token);
    return { ...jsonResponse(200, { data: session }), cookies: [playCookie(issued, { secure, embed: request.embed })] };
  }
  const id = QueryId.safeParse(params[shape.idParam] ?? '');
  const decision = await services.play.open({
    kind: shape.kind,
    id: id.success ? id.data : null,
    orgSlug: params.org_slug,
    embed: shape.embed,
    token: query.session_token,
    pass: id.success ? cookies[playCookieName(shape.kind, id.data, secure)] : undefined,
  });
  return htmlResponse(playView(decision, shape, ENDPOINTS));
}

/**
 * One cookie per game or stream, so that playing one never ends the session of another. Over
 * https the `__Host-` prefix pins it to this host, path `/` and `Secure`.
 */
export function playCookieName(kind: Playable['kind'], id: number, secure: boolean): string {
  return `${secure ? '__Host-' : ''}play_${kind}_${id}`;
}

/**
 * The play cookie: HttpOnly (the page's scripts and the game never see it), `SameSite=Lax` so a
 * partner's link opens with it. An embed page lives in a partner's iframe, a third-party context
 * where only `SameSite=None; Secure` cookies work, partitioned per top-level site (CHIPS); over
 * plain http (local runs) that is impossible and the embed falls back to Lax.
 */
export function playCookie(issued: IssuedPass, options: { secure: boolean; embed: boolean }): string {
  const { pass, value, maxAgeSeconds } = issued;
  const attributes = [`${playCookieName(pass.kind, pass.id, options.secure)}=${value}`, 'Path=/', `Max-Age=${maxAgeSeconds}`, 'HttpOnly'];
  if (options.secure) attributes.push('Secure');
  attributes.push(options.secure && options.embed ? 'SameSite=None; Partitioned' : 'SameSite=Lax');
  return attributes.join('; ');
}

/**
 * GET /play/game/{id}, /play/stream/{id}, /game/{id}, /embed/{id}, /stream/{org_slug}/{id}
 * (`?session_token=` when the game or stream requires one; HTML), and POST /play/session (the
 * page's script consumes the page's token and gets the play cookie, in one request).
 */
export const handler = /* @__PURE__ */ page(playPageOperations, servePlay, playServices);
