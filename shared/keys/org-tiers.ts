import { Conflict } from '../platform/errors.js';
import type { Tier } from '../catalog/index.js';
import type { KeyTierStore, OrgTierStore } from './ports.js';

/** What a tier change did. */
export interface TierChange {
  readonly org_id: number;
  readonly tier: Tier;
  /** The org's `tier_version` after the change. */
  readonly version: number;
  /** Keys of the org that now carry the tier. */
  readonly keys: number;
}

/**
 * Changing an organization's tier (billing, an operator): the org first, then every key of the org,
 * which carries a copy so that authentication stays one strongly consistent read. Once `change`
 * returns, the very next call of every key of the org is decided by the new tier.
 *
 * Races, and how they are closed:
 * - A key created concurrently (create-key, rotate-key) copied the tier and `tier_version` it read
 *   while being authorized, and is written in one transaction with a check that the org's item still
 *   has that version (`KeyAdminStore.createInOrg`). Either the transaction comes before this
 *   change's org write, and this change's scan of the keys (strongly consistent, started after that
 *   write) finds the key; or it comes after, and the check refuses the key: below Business the
 *   create is refused (TierRequired), else `KeyAdmin` stores it again with the new tier.
 * - Two changes of the same org: every copy carries the org's `tier_version`, and a key only takes
 *   a version at least as new as its own, so a slow earlier change never overwrites a later one.
 */
export class OrgTiers {
  constructor(private readonly deps: { readonly orgs: OrgTierStore; readonly keys: KeyTierStore }) {}

  /** Set the org's tier and hand it to every key of the org. @throws NotFound (no such org) */
  async change(orgId: number, tier: Tier): Promise<TierChange> {
    const written = await this.deps.orgs.setOrgTier(orgId, tier);
    const keys = await this.deps.keys.setOrgTier(orgId, written.tier, written.version);
    return { org_id: orgId, tier: written.tier, version: written.version, keys };
  }
}

/**
 * A refusal of the key store (`KeyAdminStore.createInOrg`), answered as the error table's Conflict:
 * a new key's org changed its tier between the call's authorization and the key's write, to another
 * tier that allows keys (409 should it reach the client: the call may be repeated). The key was not
 * stored; `tier` and `version` are the org's now, for storing it again ({@link OrgTiers}: the races).
 */
export class TierChanged extends Conflict {
  constructor(
    readonly tier: Tier,
    readonly version: number,
    options?: { cause?: unknown },
  ) {
    super("The organization's tier changed while the key was being stored; try again", undefined, options);
  }
}
