/** list-orgs: the organizations a signed-in subject belongs to, as the console's org picker shows them. */
import * as z from 'zod/mini';
import { ROLES, TIERS } from './model.js';
import { Id, withMeta } from '../platform/schemas.js';

const Membership = withMeta(
  z.object({
    org_id: Id,
    name: z.string(),
    tier: withMeta(z.enum(TIERS), { description: 'The organization’s tier (Business or higher may use the API).' }),
    role: withMeta(z.enum(ROLES), { description: 'The subject’s role in it (docs/decisions.md#organization-roles).' }),
  }),
  { id: 'OrgMembership' },
);

/** Every organization the token's subject is a member of, by `org_id` (none: an empty list). */
export const OrgMemberships = withMeta(z.object({ orgs: z.array(Membership) }), { id: 'OrgMemberships' });
