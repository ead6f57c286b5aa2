/** The console's pages as hash routes (`#/org/1/keys`): the page itself is always `/console/`, the redirect URI. */
import { useEffect, useState } from 'preact/hooks';

/** The pages of an organization. */
export const ORG_PAGES = [
  { page: 'keys', label: 'API keys' },
  { page: 'usage', label: 'Usage' },
  { page: 'audit', label: 'Audit log' },
  { page: 'games', label: 'Games & streams' },
  // Only in the tabs of a role that may manage webhooks (app.tsx): no other role may even list them.
  { page: 'webhooks', label: 'Webhooks', needs: 'webhooks' },
] as const;

/** A page of an organization. */
export type OrgPage = (typeof ORG_PAGES)[number]['page'];

/** Where the console is: the org picker, or a page of one org. */
export type Route = { readonly page: 'orgs' } | { readonly page: OrgPage; readonly orgId: number };

/** The route a hash names; anything unknown is the org picker. */
function parseRoute(hash: string): Route {
  const match = /^#\/org\/(\d{1,15})\/(\w+)$/.exec(hash);
  const page = ORG_PAGES.find((p) => p.page === match?.[2]);
  if (!match || !page) return { page: 'orgs' };
  return { page: page.page, orgId: Number(match[1]) };
}

/** The hash of a route. */
export function routeHash(route: Route): string {
  return route.page === 'orgs' ? '#/' : `#/org/${route.orgId}/${route.page}`;
}

/** The current route, following the hash. */
export function useRoute(): Route {
  const [route, setRoute] = useState(() => parseRoute(location.hash));
  useEffect(() => {
    const follow = () => setRoute(parseRoute(location.hash));
    addEventListener('hashchange', follow);
    return () => removeEventListener('hashchange', follow);
  }, []);
  return route;
}
