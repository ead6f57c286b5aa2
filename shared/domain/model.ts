/** The records the domain works with. Field names follow the wire format (snake_case). */
import type { McpScope } from '../keys/mcp-scopes.js';
import type { AuditDiff } from '../audit/audit-diff.js';

export const TIERS = ['free', 'pro', 'business', 'enterprise'] as const;
export type Tier = (typeof TIERS)[number];

export const ROLES = ['owner', 'admin', 'editor', 'analyst', 'viewer'] as const;
export type Role = (typeof ROLES)[number];

/** Business or higher may use the API (spec: Authentication rule 3). */
export function tierAllowsApi(tier: Tier): boolean {
  return tier === 'business' || tier === 'enterprise';
}

/** An organization of the catalog. */
export interface Org {
  readonly org_id: number;
  readonly slug: string;
  readonly name: string;
  readonly tier: Tier;
  /**
   * Origins (`https://partner.example`, `https://*.partner.example`, or `*`) whose pages may frame
   * the org's `/embed/<id>` pages (CSP `frame-ancestors`). Absent or empty: nobody may.
   */
  readonly allowed_origins?: readonly string[];
  /** Bumped by every tier change (absent: 0); keys copy it with the tier, so an older copy never overwrites a newer one. */
  readonly tier_version?: number;
}

/** A game or a stream of the catalog: what a session token is minted for. */
export interface Playable {
  readonly kind: 'game' | 'stream';
  readonly id: number;
  readonly org_id: number;
  readonly org_slug: string;
  readonly name: string;
  /** The "Require API Session Token" setting of the Configuration tab. */
  readonly require_session_token: boolean;
  /** What the play page shows. */
  readonly content_url: string;
}

/** The stored API key record (never the raw key). */
export interface ApiKeyRecord {
  readonly id: number;
  readonly org_id: number;
  /** SHA-256 of the raw key, hex. The table's partition key. */
  readonly key_hash: string;
  readonly key_prefix: string;
  readonly name: string;
  readonly description: string | null;
  readonly allowed_game_ids: readonly number[] | null;
  readonly allowed_stream_ids: readonly number[] | null;
  readonly rate_limit_per_minute: number;
  readonly rate_limit_per_day: number;
  readonly expires_at: string | null;
  readonly is_active: boolean;
  readonly mcp_scopes: readonly McpScope[];
  /**
   * The owning org's tier, copied here so authentication stays one read. Every tier change reaches
   * every key of the org (`OrgTiers.change`, shared/keys/org-tiers.ts).
   */
  readonly org_tier: Tier;
  /** The org's `tier_version` the copy was taken at (absent: 0). */
  readonly org_tier_version?: number;
  readonly created_at: string;
  readonly updated_at: string;
  readonly last_used_at: string | null;
  /**
   * Counts the changes of the key's limits (absent: 0, never changed); with `limits_changed_at`, the
   * time of the last one, it tells a call whether the day's counter layout changed
   * (shared/keys/counter-layouts.ts). Internal: never in a key's view.
   */
  readonly limits_version?: number;
  readonly limits_changed_at?: string;
  /** Id of the key this one was rotated to (absent or null: never rotated). */
  readonly rotated_to?: number | null;
  /** Id of the key this one replaced by a rotation (absent or null: created directly). */
  readonly rotated_from?: number | null;
}

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
  readonly status: StoredTokenStatus;
  readonly created_at: string;
  readonly expires_at: string;
  readonly session_id?: number;
  readonly player_uuid?: string | null;
  readonly consumed_at?: string;
  readonly revoked_at?: string;
}

/** Who made a call, for audit and logs. */
export interface CallContext {
  /**
   * The request's id: the caller's `x-request-id` when valid, else the gateway's. One id everywhere:
   * the answer's `request_id` and `x-request-id`, the log line and the audit record
   * (docs/decisions.md#audit).
   */
  readonly requestId: string;
  /**
   * The id API Gateway (or the local front) gave the request: unique, never the caller's choice.
   * What must tell one request from every other uses it ({@link uniqueRequestId}). Absent: `requestId`.
   */
  readonly gatewayRequestId?: string;
  readonly sourceIp: string;
  readonly userAgent: string;
  /** Filled by the domain for key-authenticated calls; the HTTP bundle turns it into headers. */
  rateLimit?: RateLimitState;
}

/**
 * The id that tells a request from every other: the gateway's, never the caller's `x-request-id`
 * (which two requests may share): an audit record's item, a revocation's mark of its own request.
 */
export function uniqueRequestId(call: Pick<CallContext, 'requestId' | 'gatewayRequestId'>): string {
  return call.gatewayRequestId ?? call.requestId;
}

/** One rate-limit window as the client should see it. */
export interface WindowState {
  readonly name: 'minute' | 'day';
  readonly limit: number;
  readonly windowSeconds: number;
  readonly remaining: number;
  readonly resetSeconds: number;
}

/** Both windows of a key after a call. */
export interface RateLimitState {
  readonly windows: readonly WindowState[];
}

/** A record of the audit log. */
export interface AuditRecord {
  readonly org_id: number;
  readonly at: string;
  /** The request's id as answered (its `x-request-id`: the caller's when valid). */
  readonly request_id: string;
  /**
   * The gateway's id of the request, where the caller chose `request_id`: unique, so it places the
   * record (`shared/audit/audit-store.ts`) and two requests sharing an `x-request-id` keep a record each.
   */
  readonly gateway_request_id?: string;
  readonly action: string;
  /** HTTP status of the outcome. */
  readonly status: number;
  readonly key_id: number | null;
  readonly key_prefix: string | null;
  /** Subject of the admin for key-management calls. */
  readonly actor: string | null;
  readonly game_id: number | null;
  readonly stream_id: number | null;
  /** First 8 characters of the token concerned; never the whole token. */
  readonly token_prefix: string | null;
  readonly source_ip: string;
  readonly user_agent: string;
  /** Key-management calls: the key properties the call set (e.g. `is_active` for a revoke). */
  readonly changes?: readonly string[] | null;
  /**
   * Updates (a key's, a game's or stream's, a rotated key's retirement): each field whose value
   * changed, before and after (`audit-diff.ts`). Absent on other records.
   */
  readonly diff?: AuditDiff | null;
  /**
   * A mint's whole token, stored only: the session report finds an org's tokens through the records
   * of its mints (`shared/usage/token-report-store.ts`). The audit log never returns it.
   */
  readonly minted_token?: string;
  /**
   * Where the store put it (`shared/audit/audit-store.ts`: its org's shard), once it has: a rewrite
   * with the real outcome goes to the same item. Not stored.
   */
  readonly shard?: number;
}
