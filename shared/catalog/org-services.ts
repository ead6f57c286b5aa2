/** The org-picker part (bearer): the organizations the signed-in subject belongs to. */
import { createBearerVerifier } from '../platform/bearer.js';
import { Memberships } from './memberships.js';
import type { BearerServices } from '../keys/services.js';
import { bearerOptions, coreServices, part, type CoreServices } from '../platform/services.js';
import { catalogStore } from '../platform/stores.js';

/** What the list-orgs function needs. */
export interface OrgsServices extends CoreServices, BearerServices {
  readonly memberships: Memberships;
}

/** The org-picker part of this container's services. */
export const orgsServices = /* @__PURE__ */ part((): OrgsServices => {
  const core = coreServices();
  return { ...core, bearer: createBearerVerifier(core.env, bearerOptions()), memberships: new Memberships(catalogStore()) };
});
