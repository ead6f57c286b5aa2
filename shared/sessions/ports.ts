/** The session stores the domain needs, as ports (DynamoDB adapters implement them). */
import { type TokenRecord } from './model.js';

export interface TokenStore {
  /** Store a new token (never overwrites). `ttl` is epoch seconds. */
  put(token: TokenRecord, ttl: number): Promise<void>;
  /** Strongly consistent read. */
  get(token: string): Promise<TokenRecord | undefined>;
  /**
   * One conditional write: active, not expired at `nowIso` and, for a token bound to a player
   * (`player_ref`), `playerUuid` its player -> consumed with the session id.
   * @throws PlayerMismatch when only the player failed (the token stays active); TokenGone otherwise.
   */
  consume(token: string, nowIso: string, sessionId: number, playerUuid: string | null): Promise<TokenRecord>;
  /**
   * One conditional write: active, not expired, owned by `orgId` -> revoked by `requestId`.
   * @throws NotFound when the token does not exist or belongs to another org; TokenGone otherwise.
   */
  revoke(token: string, orgId: number, nowIso: string, requestId: string): Promise<TokenRecord>;
  /** Remove a token that was never handed out (compensation). */
  delete(token: string): Promise<void>;
}
