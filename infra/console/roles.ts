/**
 * What the signed-in subject may do in an organization, from the role and tier list-orgs gives: the
 * pages show read-only or hide what the service would refuse, before anyone clicks. The rules are
 * the service's own (`PERMISSIONS`, docs/decisions.md#organization-roles), imported, not copied; the
 * service still decides, and a refusal it answers is shown as before.
 */
import { PERMISSIONS, type PermissionName } from '../../shared/catalog/permissions.js';
import { tierAllowsApi } from '../../shared/catalog/model.js';
import type { OrgMembership } from './api';

/**
 * Whether `org`'s member may do `permission`. An org not in the list (opened by its id, or the list
 * still loading) is unknown: allowed here, and the service's answer says.
 */
export function may(org: OrgMembership | undefined, permission: PermissionName): boolean {
  if (!org) return true;
  return (PERMISSIONS[permission].roles as readonly string[]).includes(org.role);
}

/** Whether `org`'s member may switch its games and streams: the role, and Business or higher (as the MCP tools). */
export function maySwitchGames(org: OrgMembership | undefined): boolean {
  return may(org, 'catalogWrite') && (!org || tierAllowsApi(org.tier));
}
