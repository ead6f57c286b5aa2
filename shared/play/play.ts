/**
 * What a play page shows. The page validates the token read-only here; the page's own script
 * consumes it afterwards (so a link scanner that runs no script never burns it), and then trades
 * the consumed session for a signed play pass so that a refresh keeps playing.
 */
import { SessionToken } from '../platform/schemas.js';
import type { Clock } from '../platform/time.js';
import { errorStatus, Forbidden, type DomainErrorName } from '../platform/errors.js';
import type { Playable } from '../catalog/index.js';
import { NO_PLAY_PASS, type TokenRecord } from '../sessions/index.js';
import type { PlayPass, PlayPassSigner } from './play-pass.js';
import type { CatalogStore } from '../catalog/index.js';
import type { TokenStore } from '../sessions/index.js';
import { statusAt } from '../sessions/index.js';

/** Why a page refuses to play. */
export type PlayRefusal =
  'unknown-playable' | 'missing-token' | 'malformed-token' | 'unknown-token' | 'wrong-resource' | 'consumed' | 'expired' | 'revoked';

/**
 * The named error each refusal is; its status comes from THE error table (`errors.ts`). A missing
 * token and a token for another game or stream are Forbidden (403): RFC 9110 ties 401 to an HTTP
 * authentication challenge, which a link's query parameter is not. Unknown games, streams and
 * tokens are NotFound (404); used, expired and revoked tokens are gone for good: TokenGone (410).
 */
export const refusalError = {
  'unknown-playable': 'NotFound',
  'missing-token': 'Forbidden',
  'malformed-token': 'InvalidInput',
  'unknown-token': 'NotFound',
  'wrong-resource': 'Forbidden',
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
  /** The token is active: the page's script consumes it, then plays. */
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
  /** The token the script consumes (`consume` only). */
  readonly token: string | null;
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

export interface PlayPagesDeps {
  readonly catalog: CatalogStore;
  readonly tokens: TokenStore;
  readonly clock: Clock;
  readonly passes: PlayPassSigner;
  /** How long a play session lasts after the consumption (the pass lifetime). */
  readonly passSeconds: number;
  /** How soon after the consumption the page must ask for its pass. */
  readonly exchangeWindowSeconds: number;
}

/**
 * Play-pass exchanges one token allows, right or wrong: the page needs one (a retry or a second
 * tab a few more); an attacker holding a used link gets this many guesses at its session id.
 */
export const MAX_EXCHANGE_ATTEMPTS = 5;

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
    if (status === 'active') return play('consume');
    const pass = passes.read(request.pass, now);
    if (status === 'consumed' && pass && pass.sid === record.session_id && pass.kind === playable.kind && pass.id === playable.id) {
      return play('resume');
    }
    return refuse(status);
  }

  /**
   * Trade a session the page has just consumed for a play pass. The token record must say it was
   * consumed as `sessionId` (which only the consume answer revealed) within the exchange window.
   * Every attempt is counted on the token, at most {@link MAX_EXCHANGE_ATTEMPTS}: with session ids
   * unpredictable in 2^52 (`id-permutation.ts`), a link holder's guesses are hopeless.
   * @throws NotFound (unknown token), Forbidden (not consumed, another session, too late, attempts used up)
   */
  async issuePass(token: string, sessionId: number): Promise<IssuedPass> {
    const { tokens, clock, passes, passSeconds, exchangeWindowSeconds } = this.deps;
    const record = await tokens.countExchange(token, MAX_EXCHANGE_ATTEMPTS);
    const now = clock.now();
    const recent = record.consumed_at !== undefined && now - Date.parse(record.consumed_at) <= exchangeWindowSeconds * 1000;
    if (record.status !== 'consumed' || record.session_id !== sessionId || !recent) throw new Forbidden(NO_PLAY_PASS);
    const target =
      record.game_id !== null ? { kind: 'game' as const, id: record.game_id } : { kind: 'stream' as const, id: record.stream_id! };
    const pass: PlayPass = { sid: sessionId, ...target, exp: Math.floor(now / 1000) + passSeconds };
    return { pass, value: passes.sign(pass), maxAgeSeconds: passSeconds };
  }
}

/** Whether a token was minted for this game or stream. */
function isFor(record: TokenRecord, playable: Playable): boolean {
  return playable.kind === 'game' ? record.game_id === playable.id : record.stream_id === playable.id;
}

/** The canonical play URL of a game or stream (docs/decisions.md#play-pages: `/play/game/<id>`, `/play/stream/<id>`). */
export function playUrl(baseUrl: string, kind: Playable['kind'], id: number, token?: string): string {
  const url = `${baseUrl.replace(/\/+$/, '')}/play/${kind}/${id}`;
  return token ? `${url}?session_token=${encodeURIComponent(token)}` : url;
}
