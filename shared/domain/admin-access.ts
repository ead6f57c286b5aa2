import { Forbidden, TierRequired } from './errors.js';
import { tierAllowsApi, type Org, type Role } from './model.js';
import type { CatalogStore } from './ports.js';

/** An org admin as the bearer token identifies them (the JWT `sub`). */
export interface AdminIdentity {
  readonly subject: string;
}

/** What a member may do, each with the roles allowed it and how a refusal names it. */
interface Permission {
  readonly roles: readonly Role[];
  /** The refusal's message: who may do what. */
  readonly refusal: string;
}

/** The permissions of bearer operations (docs/decisions.md#organization-roles). */
export const PERMISSIONS = {
  /** Manage keys and read the audit log. */
  keys: { roles: ['owner', 'admin'], refusal: 'Only owners and admins of the organization may manage API keys' },
  /** Read the usage report. */
  usage: { roles: ['owner', 'admin', 'analyst'], refusal: 'Only owners, admins and analysts of the organization may read its usage' },
  /** List the games and streams. */
  catalogRead: {
    roles: ['owner', 'admin', 'editor', 'analyst', 'viewer'],
    refusal: 'Only members of the organization may list its games and streams',
  },
  /** Change a game's or stream's settings. */
  catalogWrite: {
    roles: ['owner', 'admin', 'editor'],
    refusal: 'Only owners, admins and editors of the organization may change its games and streams',
  },
} as const satisfies Record<string, Permission>;

/** A permission's name. */
export type PermissionName = keyof typeof PERMISSIONS;

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
