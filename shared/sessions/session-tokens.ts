/**
 * What needs no key: reading a token (validate-session, read-only) and consuming it (once). Apart
 * from minting and revoking (`sessions.ts`), so that those functions carry no key calls.
 */
import { isoTime, type Clock } from '../platform/time.js';
import { NotFound, PlayerMismatch, TokenGone } from '../platform/errors.js';
import { statusAt, type TokenRecord } from './model.js';
import type { TokenStore } from './ports.js';
import type { IdSource } from '../platform/ids.js';
import type * as z from 'zod/mini';
import type { Frozen } from '../platform/route.js';
import type { ConsumedSession as ConsumedSessionSchema, SessionView as SessionViewSchema } from './schemas.js';

/** The validate-session (and revoke-session) answer: the token's public view (its schema's shape). */
export type SessionView = Frozen<z.output<typeof SessionViewSchema>>;

/** The consume-session answer. */
export type ConsumedSession = Frozen<z.output<typeof ConsumedSessionSchema>>;

/** What reading a token needs. */
export interface SessionReadsDeps {
  readonly tokens: TokenStore;
  readonly clock: Clock;
}

/** What consuming a token needs besides. */
export interface SessionTokensDeps extends SessionReadsDeps {
  readonly sessionIds: IdSource;
}

/** Reading a token without consuming it. */
export class SessionReads {
  constructor(protected readonly deps: SessionReadsDeps) {}

  /** Read a token without consuming it. @throws NotFound for a token that does not exist. */
  async validate(token: string): Promise<SessionView> {
    const record = await this.deps.tokens.get(token);
    if (!record) throw new NotFound('Session not found');
    return this.view(record);
  }

  protected view(record: TokenRecord): SessionView {
    const status = statusAt(record, this.deps.clock.now());
    return {
      valid: status === 'active',
      status,
      game_id: record.game_id,
      stream_id: record.stream_id,
      expires_at: record.expires_at,
      external_ref: record.external_ref,
      metadata: record.metadata,
      // Whether a player is bound, never which: the token is read without a credential.
      player_bound: record.player_ref !== null,
    };
  }
}

/** Consuming a token, atomically and once, beside reading it. */
export class SessionTokens extends SessionReads {
  constructor(protected override readonly deps: SessionTokensDeps) {
    super(deps);
  }

  /**
   * Consume a token: one conditional write. A token bound to a player (`player_ref`) is consumed
   * only with `playerUuid` equal to it; otherwise it stays active.
   * @throws TokenGone (unknown, used, expired, revoked), PlayerMismatch (bound to another player)
   */
  async consume(token: string, playerUuid: string | null): Promise<ConsumedSession> {
    const sessionId = await this.deps.sessionIds.nextId();
    const record = await this.deps.tokens.consume(token, isoTime(this.deps.clock.now()), sessionId, playerUuid).catch((error: unknown) => {
      // A refused consumption stored nothing: its id goes back, so refusals never cost a reservation write.
      if (error instanceof TokenGone || error instanceof PlayerMismatch) this.deps.sessionIds.release(sessionId);
      throw error;
    });
    return {
      session_id: sessionId,
      org_id: record.org_id,
      game_id: record.game_id,
      stream_id: record.stream_id,
      external_ref: record.external_ref,
      metadata: record.metadata,
    };
  }
}
