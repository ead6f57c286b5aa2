/**
 * The stores the domain needs, as ports. The DynamoDB adapters in `shared/store/` implement them
 * and turn conditional-write failures into the domain errors named here.
 */
import type { ApiKeyRecord, AuditRecord, Org, Playable, Role, TokenRecord } from './model.js';

export interface TokenStore {
  /** Store a new token (never overwrites). `ttl` is epoch seconds. */
  put(token: TokenRecord, ttl: number): Promise<void>;
  /** Strongly consistent read. */
  get(token: string): Promise<TokenRecord | undefined>;
  /**
   * One conditional write: active and not expired at `nowIso` -> consumed with the session id.
   * @throws TokenGone when the condition fails, whatever the reason.
   */
  consume(token: string, nowIso: string, sessionId: number, playerUuid: string | null): Promise<TokenRecord>;
  /**
   * One conditional write: active, not expired, owned by `orgId` -> revoked by `requestId`.
   * @throws NotFound when the token does not exist or belongs to another org; TokenGone otherwise.
   */
  revoke(token: string, orgId: number, nowIso: string, requestId: string): Promise<TokenRecord>;
  /** Undo a revoke made by `requestId` (compensation when the call is refused afterwards). */
  unrevoke(token: string, requestId: string): Promise<void>;
  /** Remove a token that was never handed out (compensation). */
  delete(token: string): Promise<void>;
}

export interface KeyStore {
  /** Strongly consistent read by SHA-256 hash: the whole authentication. */
  getByHash(keyHash: string): Promise<ApiKeyRecord | undefined>;
  /** Record use; never recreates a deleted key. */
  touch(keyHash: string, atIso: string): Promise<void>;
  /** Store a new key (never overwrites). */
  create(key: ApiKeyRecord): Promise<void>;
}

export interface CatalogStore {
  getPlayable(kind: Playable['kind'], id: number): Promise<Playable | undefined>;
  getOrg(orgId: number): Promise<Org | undefined>;
  getRole(orgId: number, subject: string): Promise<Role | undefined>;
}

/** A fixed window of a rate limit, addressed by its counter item. */
export interface CounterWindow {
  readonly counterKey: string;
  readonly limit: number;
  /** Epoch seconds after which the counter item may be removed. */
  readonly ttl: number;
}

export interface CounterStore {
  /**
   * Count one call in the window atomically.
   * @returns the new count, or `'exhausted'` when the window is full (nothing was counted).
   */
  hit(window: CounterWindow): Promise<number | 'exhausted'>;
  /** Take back one counted call (the other window refused it). */
  unhit(window: CounterWindow): Promise<void>;
  /** Reserve `size` consecutive ids of a sequence; returns the last one. */
  reserve(sequence: string, size: number): Promise<number>;
}

export interface AuditStore {
  /** Write (or overwrite, for the same org/time/request) an audit record. */
  put(record: AuditRecord, ttl: number): Promise<void>;
}
