import type { AdminIdentity } from '../platform/bearer.js';
import type { Org, Role } from './model.js';
import type { MembershipStore } from './ports.js';

/** One organization a subject belongs to, as its org picker shows it. */
export interface OrgMembership extends Pick<Org, 'org_id' | 'name' | 'tier'> {
  readonly role: Role;
}

/**
 * The organizations a signed-in subject belongs to (the console's org picker). It needs no
 * permission: a subject sees only its own memberships, and a subject with none sees an empty list
 * (the same answer as an unknown subject, so nothing is learnt from it). Two round trips: the
 * subject's memberships, then their orgs.
 */
export class Memberships {
  constructor(private readonly store: MembershipStore) {}

  /** The subject's organizations by `org_id`; a membership whose org is gone is left out. */
  async list(admin: AdminIdentity): Promise<{ orgs: OrgMembership[] }> {
    const members = await this.store.membershipsOf(admin.subject);
    if (members.length === 0) return { orgs: [] };
    const orgs = new Map((await this.store.getOrgs(members.map((m) => m.org_id))).map((org) => [org.org_id, org]));
    const found = members.flatMap(({ org_id, role }) => {
      const org = orgs.get(org_id);
      return org ? [{ org_id, name: org.name, tier: org.tier, role }] : [];
    });
    return { orgs: found.sort((a, b) => a.org_id - b.org_id) };
  }
}
