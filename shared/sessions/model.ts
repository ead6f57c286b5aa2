/** A session token as stored. */

export type StoredTokenStatus = 'active' | 'consumed' | 'revoked';

export type TokenStatus = StoredTokenStatus | 'expired';

/** A session token as stored. */
export interface TokenRecord {
  readonly token: string;
  readonly org_id: number;
  readonly key_id: number;
  readonly game_id: number | null;
  readonly stream_id: number | null;
  readonly external_ref: string | null;
  readonly metadata: Record<string, unknown> | null;
  /**
   * The player the token is bound to (create-session's `player_ref`): only a consumption whose
   * `player_uuid` equals it may consume the token. Null: unbound, any player or none.
   */
  readonly player_ref: string | null;
  readonly status: StoredTokenStatus;
  readonly created_at: string;
  readonly expires_at: string;
  readonly session_id?: number;
  readonly player_uuid?: string | null;
  readonly consumed_at?: string;
  readonly revoked_at?: string;
}

/** Status as read now: an active token past its expiry reads as expired, cleaned up or not. */
export function statusAt(token: Pick<TokenRecord, 'status' | 'expires_at'>, nowMs: number): TokenStatus {
  return token.status === 'active' && Date.parse(token.expires_at) <= nowMs ? 'expired' : token.status;
}
