import { Forbidden, TierRequired } from './errors.js';
import { tierAllowsApi, type Org, type Role } from './model.js';
import type { CatalogStore } from './ports.js';

/** An org admin as the bearer token identifies them (the JWT `sub`). */
export interface AdminIdentity {
  readonly subject: string;
}

/** Roles that may manage an organization's keys and read its audit log (docs/decisions.md#organization-roles). */
const KEY_ADMIN_ROLES: readonly Role[] = ['owner', 'admin'];

/**
 * Authorization of org admins from the service's own catalog: the membership record (subject, org,
 * role) and the org's tier. The lookups run alongside the operation's first read, so an admin call
 * pays no extra round trip for them; the read's result is only handed back once access is granted.
 */
export class AdminAccess {
  constructor(private readonly catalog: Pick<CatalogStore, 'getOrg' | 'getRole'>) {}

  /**
   * Run `firstRead` in parallel with the membership and org lookups, then refuse unless `admin`
   * may manage the keys of `orgId`. Refusals come before any error of the read, so what a caller
   * without access learns never depends on the read (no probing through error differences).
   * @param options.anyTier the call is allowed below Business (docs/decisions.md#tiers: an org's admins can always
   *   list, revoke and delete its keys, so a downgraded org can still shut its keys off)
   * @throws Forbidden (not a member, unknown org, role below admin), TierRequired
   */
  async authorize<T>(
    admin: AdminIdentity,
    orgId: number,
    firstRead: () => Promise<T>,
    options: { anyTier?: boolean } = {},
  ): Promise<{ org: Org; value: T }> {
    const [role, org, read] = await Promise.allSettled([
      this.catalog.getRole(orgId, admin.subject),
      this.catalog.getOrg(orgId),
      firstRead(),
    ]);
    if (role.status === 'rejected') throw role.reason;
    if (org.status === 'rejected') throw org.reason;
    // An unknown org and an org one is not in read the same, so org ids cannot be probed.
    if (role.value === undefined || org.value === undefined) throw new Forbidden(`You are not a member of organization ${orgId}`);
    if (!KEY_ADMIN_ROLES.includes(role.value)) throw new Forbidden('Only owners and admins of the organization may manage API keys');
    if (!options.anyTier && !tierAllowsApi(org.value.tier)) throw new TierRequired();
    if (read.status === 'rejected') throw read.reason;
    return { org: org.value, value: read.value };
  }
}
