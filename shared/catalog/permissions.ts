/**
 * What each role of an organization may do (docs/decisions.md#organization-roles): the service
 * enforces it (`admin-access.ts`), and the console reads it to show up front what a role may not do.
 * No other import, so the console's bundle takes nothing else of the domain with it.
 */
import type { Role } from './model.js';

/** What a member may do, each with the roles allowed it and how a refusal names it. */
export interface Permission {
  readonly roles: readonly Role[];
  /** The refusal's message: who may do what. */
  readonly refusal: string;
}

/** The permissions of bearer operations (docs/decisions.md#organization-roles). */
export const PERMISSIONS = {
  /** Manage keys and read the audit log. */
  keys: { roles: ['owner', 'admin'], refusal: 'Only owners and admins of the organization may manage API keys' },
  /** Manage the organization's webhook endpoints. */
  webhooks: { roles: ['owner', 'admin'], refusal: 'Only owners and admins of the organization may manage webhooks' },
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
