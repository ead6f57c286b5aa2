/** The catalog stores the domain needs, as ports. */
import { type Org, type Playable, type Role } from './model.js';

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
export type PlayableChanges = Partial<Pick<Playable, 'name' | 'require_session_token' | 'start'>>;
