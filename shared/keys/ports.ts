/** The key and counter stores the domain needs, as ports (DynamoDB adapters implement them and turn conditional-write failures into domain errors). */
import { type Tier } from '../catalog/index.js';
import { type ApiKeyRecord } from './model.js';
import type { CHANGEABLE_KEY_PROPERTIES } from './schemas.js';
import type { CarriedCounts, CounterLayout, CounterSlot, SlotCount } from './rate-limit.js';

export interface KeyStore {
  /** Strongly consistent read by SHA-256 hash: the whole authentication. */
  getByHash(keyHash: string): Promise<ApiKeyRecord | undefined>;
  /** Record use; never recreates a deleted key. */
  touch(keyHash: string, atIso: string): Promise<void>;
  /** Store a new key (never overwrites). */
  create(key: ApiKeyRecord): Promise<void>;
}

export interface CounterStore {
  /**
   * Count one call in both windows of a counter shard, atomically: in both, or (when either
   * window's share is used up) in neither.
   * @returns the shard's counts after the call, or the window that refused it (the day when both did)
   */
  count(slot: CounterSlot): Promise<SlotCount>;
  /**
   * Take one counted call back from both windows of the shard it was counted in (a call that ran
   * ahead of its key's read and was overruled): an `ADD -1`, which commutes with every other count.
   * When a limit change sealed the shard meanwhile, its count was carried into the day's later
   * layout (`CounterLayouts`, `rate-limit.ts`): it is taken back from what that layout carries.
   */
  uncount(slot: CounterSlot, layout: CountedLayout): Promise<void>;
}

/** The layout a call was counted in: the key, its UTC day and the layout's index that day. */
export interface CountedLayout {
  readonly keyId: number;
  readonly dayStart: number;
  readonly index: number;
}

/** A key's rate window found exhausted: the `key.rate_limited` event's source (the counters table's stream). */
export interface RateLimitNotice {
  readonly org_id: number;
  readonly key_id: number;
  readonly window: 'minute' | 'day';
  readonly limit: number;
  /** ISO 8601: the window's start and end. */
  readonly window_start: string;
  readonly resets_at: string;
  /** ISO 8601: the refusal that found it. */
  readonly at: string;
}

/** Where rate-limit notices go (items of the counters table, whose stream makes them events). */
export interface RateNoticeStore {
  /** Put the notice unless the key's window already has one: at most one per key and window, whoever puts it. */
  notice(notice: RateLimitNotice): Promise<void>;
}

/**
 * The counter layouts of a key's UTC day (`CounterLayouts`, `rate-limit.ts`): stored only when the key's limits
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

/** The properties of a key an admin may change (the key material never changes), and a rotation's link to its successor. */
export type KeyChanges = Partial<Pick<ApiKeyRecord, (typeof CHANGEABLE_KEY_PROPERTIES)[number] | 'rotated_to'>>;

/** A key before and after an update. */
export interface KeyUpdate {
  readonly before: ApiKeyRecord;
  readonly after: ApiKeyRecord;
}

/** Conditions of a key update besides the key still being there. */
export interface KeyUpdateOptions {
  /** A rotation's own write: only while the key is active and has not been rotated. */
  readonly unrotated?: boolean;
  /** An admin's update: a rotated key may not be reactivated nor have its expiry extended or removed. */
  readonly retiredStaysRetired?: boolean;
  /** Who makes the change (`updated_by`: the actor of the key event it causes); absent: left as it is. */
  readonly by?: string;
}

/** Who deleted a key and when: what its id item keeps once the key is gone (the actor of `key.deleted`). */
export interface KeyDeletion {
  readonly deleted_by: string;
  /** ISO 8601. */
  readonly deleted_at: string;
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
   * @returns the key as it was just before the write (the audit record's before values) and as it is now
   */
  update(key: KeyAddress, changes: KeyChanges, updatedAtIso: string, options?: KeyUpdateOptions): Promise<KeyUpdate>;
  /**
   * Remove a key permanently. With `deletion` (an admin's delete-key), in one transaction its id item
   * becomes a tombstone saying who deleted it and when (read as absent by every lookup by id); without
   * (a take-back of a key never handed out), the id item is deleted beside it.
   * @throws NotFound when it is already gone.
   */
  remove(key: KeyLocation, deletion?: KeyDeletion): Promise<void>;
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
