/**
 * The stores the domain needs, as ports. The DynamoDB adapters in `shared/store/` implement them
 * and turn conditional-write failures into the domain errors named here.
 */
import type { ApiKeyRecord, AuditRecord, Org, Playable, Role, Tier, TokenRecord } from './model.js';
import type { CarriedCounts, CounterLayout, CounterSlot, SlotCount } from '../keys/rate-limit.js';

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
  /**
   * Count one play-pass exchange attempt on a token (one conditional write), at most `maxAttempts`
   * per token, and return the token as it is now.
   * @throws NotFound (no such token), Forbidden (its attempts are used up)
   */
  countExchange(token: string, maxAttempts: number): Promise<TokenRecord>;
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

/** The organizations a subject belongs to (list-orgs). */
export interface MembershipStore {
  /** The subject's memberships (the catalog's index: eventually consistent). */
  membershipsOf(subject: string): Promise<{ org_id: number; role: Role }[]>;
  /** These organizations; one that does not exist is left out. */
  getOrgs(orgIds: readonly number[]): Promise<Org[]>;
}

export interface CounterStore {
  /**
   * Count one call in both windows of a counter shard, atomically: in both, or (when either
   * window's share is used up) in neither.
   * @returns the shard's counts after the call, or the window that refused it (the day when both did)
   */
  count(slot: CounterSlot): Promise<SlotCount>;
  /** Reserve `size` consecutive ids of a sequence; returns the last one. */
  reserve(sequence: string, size: number): Promise<number>;
}

/**
 * The counter layouts of a key's UTC day (`counter-layouts.ts`): stored only when the key's limits
 * changed shortly before or during the day; a key whose limits did not never touches them.
 */
export interface CounterLayoutStore {
  /** The key's stored layout of the day (strongly consistent); undefined: the day's first is in force. */
  layoutOf(keyId: number, dayStart: number): Promise<CounterLayout | undefined>;
  /**
   * Close counter items to further counts (an absent one is created closed) and return what they
   * hold together: from then on it never changes.
   */
  seal(counterKeys: readonly string[], ttl: number): Promise<CarriedCounts>;
  /**
   * Store `next` as the key's layout of the day, if layout `replaces` is still the stored one (0:
   * none is stored). @returns whether it was stored
   */
  replaceLayout(keyId: number, dayStart: number, next: CounterLayout, replaces: number, ttl: number): Promise<boolean>;
}

export interface AuditStore {
  /**
   * Write (or overwrite, for the same org/time/request) an audit record.
   * @returns the record as placed (its `shard` set): a rewrite of it lands on the same item
   */
  put(record: AuditRecord, ttl: number): Promise<AuditRecord>;
}

/** The properties of a key an admin may change (the key material never changes). */
export type KeyChanges = Partial<
  Pick<
    ApiKeyRecord,
    | 'name'
    | 'description'
    | 'allowed_game_ids'
    | 'allowed_stream_ids'
    | 'rate_limit_per_minute'
    | 'rate_limit_per_day'
    | 'expires_at'
    | 'is_active'
    | 'mcp_scopes'
    | 'rotated_to'
  >
>;

/** Conditions of a key update besides the key still being there. */
export interface KeyUpdateOptions {
  /** A rotation's own write: only while the key is active and has not been rotated. */
  readonly unrotated?: boolean;
  /** An admin's update: a rotated key may not be reactivated nor have its expiry extended or removed. */
  readonly retiredStaysRetired?: boolean;
  /** Told the key as it was just before the write (for the audit record's before values). */
  readonly previous?: (before: ApiKeyRecord) => void;
}

/** A key as addressed by admins: its organization and id, plus the table key found for them. */
export type KeyAddress = Pick<ApiKeyRecord, 'key_hash' | 'org_id' | 'id'>;

/** A key's address plus its prefix (what an admin call's audit record names). */
export type KeyLocation = KeyAddress & Pick<ApiKeyRecord, 'key_prefix'>;

/** Key management (org admins): the keys of an organization, addressed by (org_id, id). */
export interface KeyAdminStore {
  /**
   * Store an admin's new key (never overwrites), in one write with the check that its org's tier is
   * still the one the key copied (`org_tier_version`): a tier change racing the call cannot leave
   * the key with the old tier (shared/keys/org-tiers.ts). Nothing is stored when it throws.
   * @throws TierRequired (the org dropped below Business), TierChanged (to another tier allowing keys)
   */
  createInOrg(key: ApiKeyRecord): Promise<void>;
  /** Every key of an organization, by id. */
  listByOrg(orgId: number): Promise<ApiKeyRecord[]>;
  /**
   * The key with this id in this organization, read strongly consistently (a key just created is
   * found); undefined when absent or of another org.
   */
  findInOrg(orgId: number, id: number): Promise<ApiKeyRecord | undefined>;
  /**
   * Where the key with this id in this organization is (one strongly consistent read), without the
   * key itself: enough for a write conditional on the key item. Undefined when absent or of another org.
   */
  locate(orgId: number, id: number): Promise<KeyLocation | undefined>;
  /**
   * The key with this id in this organization as the `by_org` index has it: one eventually
   * consistent read of one item, which may lag a change made a moment ago. Undefined when absent there.
   */
  peek(orgId: number, id: number): Promise<ApiKeyRecord | undefined>;
  /**
   * Apply changes to a key that still exists in its org (one conditional write).
   * @throws NotFound when it is gone; Conflict with `unrotated` when it is gone, revoked or already
   *   rotated, and with `retiredStaysRetired` when the key was rotated and the changes would lengthen its life
   */
  update(key: KeyAddress, changes: KeyChanges, updatedAtIso: string, options?: KeyUpdateOptions): Promise<ApiKeyRecord>;
  /** Remove a key (and its id item) permanently. @throws NotFound when it is already gone. */
  remove(key: KeyLocation): Promise<void>;
  /**
   * Take back a rotation's retirement of `key` (its replacement could not be stored), as a
   * compare-and-swap: only while the key still holds exactly that retirement (rotated to
   * `rotatedTo`, last changed at `retiredAtIso`), so that it never overwrites a later change of
   * someone else's. @returns whether it was taken back
   */
  unretire(
    key: KeyAddress,
    restore: Pick<ApiKeyRecord, 'is_active' | 'expires_at'>,
    rotatedTo: number,
    retiredAtIso: string,
  ): Promise<boolean>;
}

/** The copies of an org's tier its keys carry (so authentication stays one read). */
export interface KeyTierStore {
  /**
   * Give every key of the org the tier at `version`; a key already at a later version keeps its own.
   * Must find every key stored before the call (a strongly consistent read, not an index).
   * @returns how many keys now carry it
   */
  setOrgTier(orgId: number, tier: Tier, version: number): Promise<number>;
  /** The same for one key. @returns whether it now carries it (false: gone, or at a later version) */
  settleTier(key: Pick<KeyAddress, 'key_hash' | 'org_id'>, tier: Tier, version: number): Promise<boolean>;
}

/** Where an org's tier changes. */
export interface OrgTierStore {
  /** Write the tier and bump the org's `tier_version`. @throws NotFound when there is no such org */
  setOrgTier(orgId: number, tier: Tier): Promise<{ tier: Tier; version: number }>;
}

/** What a refusal counted in the usage rollup is: forbidden (403) or rate limited (429). */
export type RefusalKind = 'forbidden' | 'rate_limited';

/**
 * A count of refused key calls of one key on one UTC day (`usage-rollup-store.ts`): audited ones
 * (403 out of scope, 429 by the counter) with their game or stream, and 429s answered from memory
 * (`refusal-tally.ts`), which name neither (both null).
 */
export interface RefusalCountRow {
  readonly day: string;
  readonly kind: RefusalKind;
  readonly key_id: number;
  readonly game_id: number | null;
  readonly stream_id: number | null;
  readonly count: number;
}

/** A change to the usage rollup: `count` (negative: taken back) of one kind, key, day and target. */
export interface RefusalCountChange extends RefusalCountRow {
  readonly org_id: number;
  /**
   * What spreads the org's counts over its rollup partitions: the refused call's request id (so
   * its count goes where its audit record went), or the key for counts from memory.
   */
  readonly spread: string;
}

/** The usage rollup: refused key calls counted per org, day, key and target as they happen. */
export interface UsageRollupStore {
  /** Add a change to its counter (`ttl`: epoch seconds). */
  addRefusals(change: RefusalCountChange, ttl: number): Promise<void>;
  /** Every count of the org from `from` to `to` (UTC days, inclusive); `cut` when the deadline stopped the read. */
  refusalCounts(orgId: number, from: string, to: string): Promise<{ readonly rows: RefusalCountRow[]; readonly cut?: boolean }>;
}

/** Where the report requests of organizations are counted (`report-budget.ts`). */
export interface ReportBudgetStore {
  /**
   * Count one report of the org in the minute starting at `minuteMs`, unless `limit` are counted
   * already. @returns whether it was counted
   */
  takeReport(orgId: number, minuteMs: number, limit: number, ttl: number): Promise<boolean>;
}

/** One page of an organization's audit log, newest first. */
export interface AuditPage {
  readonly records: AuditRecord[];
  /** Opaque position of the next page; null on the last page. */
  readonly cursor: string | null;
}

/** A record's outcome as the audit log filters it: `success` below status 400, `refused` from 400 on. */
export type AuditOutcome = 'success' | 'refused';

/** What to read from an organization's audit log. */
export interface AuditQuery {
  readonly org_id: number;
  /** Only records of this key. */
  readonly key_id?: number | undefined;
  /** Only records of this action (`update-key`, `create-session`, `mcp:tools/call:create_session`...). */
  readonly action?: string | undefined;
  /** Only successes (status below 400) or only refusals (400 and above). */
  readonly outcome?: AuditOutcome | undefined;
  /** A cursor from an earlier page of the same query. */
  readonly cursor?: string | undefined;
  readonly limit: number;
}

export interface AuditReader {
  /** A page of the log. @throws InvalidInput for a cursor that is not one of this query's. */
  page(query: AuditQuery): Promise<AuditPage>;
}

/** The games and streams of organizations, as the MCP catalog tools read and change them. */
export interface PlayableStore {
  getPlayable(kind: Playable['kind'], id: number): Promise<Playable | undefined>;
  /** Every game or every stream of an organization. */
  listPlayables(orgId: number, kind: Playable['kind']): Promise<Playable[]>;
  /**
   * One conditional write: change a playable of `orgId` (never another org's).
   * @returns the playable as it was before, or undefined when it does not exist in that org
   */
  updateInOrg(kind: Playable['kind'], id: number, orgId: number, changes: PlayableChanges): Promise<Playable | undefined>;
}

/** What an organization may change on its game or stream. */
export type PlayableChanges = Partial<Pick<Playable, 'name' | 'require_session_token'>>;

/** A token as the session report counts it: who made it, for what, when, and its status. */
export type ReportedToken = Pick<
  TokenRecord,
  'token' | 'org_id' | 'key_id' | 'game_id' | 'stream_id' | 'status' | 'created_at' | 'expires_at'
>;

/** What the session report reads of the tokens (eventually consistent). */
export interface TokenReportStore {
  /**
   * The tokens an organization created from `from` to `to` (UTC days, inclusive): at most `limit`
   * (`more` when there are others), `cut` when the request's deadline stopped the read.
   */
  tokensCreated(orgId: number, from: string, to: string, limit: number): Promise<TokenReads>;
}

/** What {@link TokenReportStore.tokensCreated} read. */
export interface TokenReads {
  readonly records: ReportedToken[];
  /** There are more tokens in the range than `limit`. */
  readonly more?: boolean;
  readonly cut?: boolean;
}
