import type { AdminIdentity } from '../platform/bearer.js';
import { Forbidden, TierRequired } from '../platform/errors.js';
import { tierAllowsApi, type Org } from './model.js';
import type { CatalogStore } from './ports.js';
import { PERMISSIONS, type Permission, type PermissionName } from './permissions.js';

/** How {@link AdminAccess.authorize} checks a call beyond membership. */
export interface AccessOptions {
  /**
   * The call is allowed below Business (docs/decisions.md#tiers: an org's admins can always list,
   * revoke and delete its keys, so a downgraded org can still shut its keys off).
   */
  readonly anyTier?: boolean;
  /** What the call does; `keys` when absent. */
  readonly permission?: PermissionName;
}

/**
 * Authorization of org members from the service's own catalog: the membership record (subject, org,
 * role) and the org's tier. The lookups run alongside the operation's first read, so a call pays no
 * extra round trip for them; the read's result is only handed back once access is granted.
 */
export class AdminAccess {
  constructor(private readonly catalog: Pick<CatalogStore, 'getOrg' | 'getRole'>) {}

  /**
   * Run `firstRead` in parallel with the membership and org lookups, then refuse unless `admin`'s
   * role in `orgId` has the permission. Refusals come before any error of the read, so what a caller
   * without access learns never depends on the read (no probing through error differences).
   * @throws Forbidden (not a member, unknown org, a role without the permission), TierRequired
   */
  async authorize<T>(
    admin: AdminIdentity,
    orgId: number,
    firstRead: () => Promise<T>,
    options: AccessOptions = {},
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
    const permission: Permission = PERMISSIONS[options.permission ?? 'keys'];
    if (!permission.roles.includes(role.value)) throw new Forbidden(permission.refusal);
    if (!options.anyTier && !tierAllowsApi(org.value.tier)) throw new TierRequired();
    if (read.status === 'rejected') throw read.reason;
    return { org: org.value, value: read.value };
  }
}
