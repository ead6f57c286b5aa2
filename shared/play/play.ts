/**
 * What a play page shows. The page validates the token read-only here; the page's own script
 * starts the play session afterwards, on the player's click on Play (`click`: a link scanner
 * that runs the script but clicks nothing consumes nothing) or as soon as it runs (`auto`, the
 * `/embed` shape's default): one request that consumes the token and answers with the signed play
 * pass a refresh needs.
 */
import { SessionToken } from '../platform/schemas.js';
import type { Clock } from '../platform/time.js';
import { errorStatus, PlayerMismatch, type DomainErrorName } from '../platform/errors.js';
import { startModeOf, type Playable, type StartMode } from '../catalog/index.js';
import { type SessionTokens, type TokenRecord } from '../sessions/index.js';
import type { PlayPass, PlayPassSigner } from './play-pass.js';
import type { CatalogStore } from '../catalog/index.js';
import type { TokenStore } from '../sessions/index.js';
import { statusAt } from '../sessions/index.js';

/** Why a page refuses to play. */
export type PlayRefusal =
  | 'unknown-playable'
  | 'missing-token'
  | 'malformed-token'
  | 'unknown-token'
  | 'wrong-resource'
  | 'player-bound'
  | 'consumed'
  | 'expired'
  | 'revoked';

/**
 * The named error each refusal is; its status comes from THE error table (`errors.ts`). A missing
 * token and a token for another game or stream are Forbidden (403): RFC 9110 ties 401 to an HTTP
 * authentication challenge, which a link's query parameter is not. Unknown games, streams and
 * tokens are NotFound (404); used, expired and revoked tokens are gone for good: TokenGone (410).
 * A token bound to a player is PlayerMismatch (403): a page names no player, so it can never consume
 * one, and the partner's app that knows the player starts the game.
 */
export const refusalError = {
  'unknown-playable': 'NotFound',
  'missing-token': 'Forbidden',
  'malformed-token': 'InvalidInput',
  'unknown-token': 'NotFound',
  'wrong-resource': 'Forbidden',
  'player-bound': 'PlayerMismatch',
  consumed: 'TokenGone',
  expired: 'TokenGone',
  revoked: 'TokenGone',
} as const satisfies Record<PlayRefusal, DomainErrorName>;

/** A play page request, as the route and the browser gave it. */
export interface PlayRequest {
  readonly kind: Playable['kind'];
  /** The id from the path; null when it is not a positive integer (no such game or stream). */
  readonly id: number | null;
  /** The org slug of the `/stream/<org_slug>/<stream_id>` shape; it must match the stream's org. */
  readonly orgSlug?: string | undefined;
  /** The `/embed/<id>` shape: framed by the org's allowed origins. */
  readonly embed: boolean;
  /** The raw `session_token` query value. */
  readonly token: string | undefined;
  /** The raw play cookie for this game or stream, if the browser sent one. */
  readonly pass: string | undefined;
}

/** How a granted page starts the game. */
export type PlayStart =
  /** The setting is off: play with no token. */
  | 'open'
  /** The token is active: the page's script starts the play session (consuming it), then plays. */
  | 'consume'
  /** This browser consumed the token earlier (its play pass says so): play again. */
  | 'resume';

interface DecisionBase {
  readonly playable: Playable | undefined;
  /** Origins that may frame the page (embed shape only; empty: nobody). */
  readonly frameAncestors: readonly string[];
}

/** The page plays. */
export interface PlayGranted extends DecisionBase {
  readonly outcome: 'play';
  readonly playable: Playable;
  readonly start: PlayStart;
  /** The token the script starts its play session with (`consume` only). */
  readonly token: string | null;
  /** `consume` only: whether the script waits for the player's click on Play, or starts at once (the game's start mode for this page shape). */
  readonly mode: StartMode;
}

/** The page explains why it does not play. */
export interface PlayRefused extends DecisionBase {
  readonly outcome: 'refused';
  readonly reason: PlayRefusal;
  readonly status: number;
}

export type PlayDecision = PlayGranted | PlayRefused;

/** A play pass just issued, with the cookie value that carries it. */
export interface IssuedPass {
  readonly pass: PlayPass;
  readonly value: string;
  readonly maxAgeSeconds: number;
}

/** What a consumption answers: the partner API's consume-session answer (session id, org, target, reference, metadata). */
export type Consumption = Awaited<ReturnType<SessionTokens['consume']>>;

/** A play session just started: the consumption's answer, and the play pass for it. */
export interface StartedPlay {
  readonly session: Consumption;
  readonly issued: IssuedPass;
}

export interface PlayPagesDeps {
  readonly catalog: CatalogStore;
  /** Token reads (the pages). */
  readonly tokens: TokenStore;
  /** The consumption, exactly as the partner API's consume-session does it (session ids included). */
  readonly sessions: Pick<SessionTokens, 'consume'>;
  readonly clock: Clock;
  readonly passes: PlayPassSigner;
  /** How long a play session lasts after the consumption (the pass lifetime). */
  readonly passSeconds: number;
}

/** The play pages' rules. */
export class PlayPages {
  constructor(private readonly deps: PlayPagesDeps) {}

  /**
   * Decide what a page shows. Read-only: the playable and the token are read in parallel (the org
   * too, chained on the playable, for the embed shape's allowed origins); nothing is written.
   */
  async open(request: PlayRequest): Promise<PlayDecision> {
    const { catalog, tokens, clock, passes } = this.deps;
    const parsed = request.token === undefined || request.token === '' ? undefined : SessionToken.safeParse(request.token);
    const token = parsed?.success ? parsed.data : undefined;
    const found = request.id === null ? Promise.resolve(undefined) : catalog.getPlayable(request.kind, request.id);
    const [playable, record, org] = await Promise.all([
      found,
      token ? tokens.get(token) : undefined,
      request.embed ? found.then((p) => (p ? catalog.getOrg(p.org_id) : undefined)) : undefined,
    ]);
    const frameAncestors = org?.allowed_origins ?? [];
    const refuse = (reason: PlayRefusal): PlayRefused => ({
      outcome: 'refused',
      reason,
      status: errorStatus[refusalError[reason]],
      playable,
      frameAncestors,
    });
    const play = (start: PlayStart): PlayGranted => ({
      outcome: 'play',
      start,
      token: start === 'consume' ? token! : null,
      mode: startModeOf(playable!.start, request.embed),
      playable: playable!,
      frameAncestors,
    });

    // A stream page names its org too: the stream must be that org's.
    const known = playable && (request.orgSlug === undefined || request.orgSlug.toLowerCase() === playable.org_slug);
    if (!known) return refuse('unknown-playable');
    if (!playable.require_session_token) return play('open');
    if (!parsed) return refuse('missing-token');
    if (!token) return refuse('malformed-token');
    if (!record) return refuse('unknown-token');
    if (!isFor(record, playable)) return refuse('wrong-resource');
    const now = clock.now();
    const status = statusAt(record, now);
    if (status === 'active') return record.player_ref === null ? play('consume') : refuse('player-bound');
    const pass = passes.read(request.pass, now);
    if (status === 'consumed' && pass && pass.sid === record.session_id && pass.kind === playable.kind && pass.id === playable.id) {
      return play('resume');
    }
    return refuse(status);
  }

  /**
   * Start the play session of a page's token: consume it (one conditional write: the partner API's
   * consume-session, session id and all) and sign the play pass of the session it became, bound to
   * its session id and to the game or stream the token was minted for. Only the request whose
   * write consumed the token gets a pass: a token used (by this browser too), expired, revoked or
   * unknown is TokenGone and gets none, so a token yields one pass, and there is nothing to guess.
   * A token bound to a player is refused by the same write (the page names no player) and stays active.
   * @throws TokenGone (unknown, used, expired, revoked), PlayerMismatch (bound to a player)
   */
  async start(token: string): Promise<StartedPlay> {
    const { sessions, clock, passes, passSeconds } = this.deps;
    const session = await sessions.consume(token, null).catch((error: unknown) => {
      // The page's words (its refusals are pages), not the partner API's.
      if (error instanceof PlayerMismatch) throw new PlayerMismatch(PLAYER_BOUND_MESSAGE, { cause: error });
      throw error;
    });
    const target =
      session.game_id !== null ? { kind: 'game' as const, id: session.game_id } : { kind: 'stream' as const, id: session.stream_id! };
    const pass: PlayPass = { sid: session.session_id, ...target, exp: Math.floor(clock.now() / 1000) + passSeconds };
    return { session, issued: { pass, value: passes.sign(pass), maxAgeSeconds: passSeconds } };
  }
}

/** Why a page cannot start a token bound to a player: the partner's app, which knows the player, starts it. */
const PLAYER_BOUND_MESSAGE =
  'This session is reserved for one player, so it can only be started from the app that gave you this link, not from this page.';

/** Whether a token was minted for this game or stream. */
function isFor(record: TokenRecord, playable: Playable): boolean {
  return playable.kind === 'game' ? record.game_id === playable.id : record.stream_id === playable.id;
}

/** The canonical play URL of a game or stream (docs/decisions.md#play-pages: `/play/game/<id>`, `/play/stream/<id>`). */
export function playUrl(baseUrl: string, kind: Playable['kind'], id: number, token?: string): string {
  const url = `${baseUrl.replace(/\/+$/, '')}/play/${kind}/${id}`;
  return token ? `${url}?session_token=${encodeURIComponent(token)}` : url;
}
