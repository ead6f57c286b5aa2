/** The org-picker part (bearer): the organizations the signed-in subject belongs to. */
import { createBearerVerifier } from '../auth/jwt.js';
import { Memberships } from '../domain/memberships.js';
import type { BearerServices } from './admin.js';
import { coreServices, part, type CoreServices } from './base.js';
import { catalogStore } from './stores.js';

/** What the list-orgs function needs. */
export interface OrgsServices extends CoreServices, BearerServices {
  readonly memberships: Memberships;
}

/** The org-picker part of this container's services. */
export const orgsServices = /* @__PURE__ */ part((): OrgsServices => {
  const core = coreServices();
  return { ...core, bearer: createBearerVerifier(core.env), memberships: new Memberships(catalogStore()) };
});
