/**
 * The console's pages as hash routes: the page itself is always `/console/`, the redirect URI.
 * `#/` is the org picker, `#/org/1/keys` a page of org 1, and `#/org/1/keys/3` (a key) or
 * `#/org/1/webhooks/5` (an endpoint) the page of one item; `#/org/1/webhooks/5/deliveries` is an
 * endpoint's page brought to its deliveries (a link an on-call engineer can share). Each is an
 * entry of the browser's history, so Back goes from an item's page to its list.
 */
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

/** The pages whose items have a page of their own (a key, an endpoint). */
const ITEM_PAGES: ReadonlySet<OrgPage> = new Set<OrgPage>(['keys', 'webhooks']);

/** A part of an item's page a route brings into view: an endpoint's deliveries. */
export type Section = 'deliveries';

/**
 * Where the console is: the org picker, a page of one org, or (`itemId`) the page of one of its
 * keys or endpoints, brought to `section` when it names one.
 */
export type Route =
  | { readonly page: 'orgs' }
  | { readonly page: OrgPage; readonly orgId: number; readonly itemId?: number | undefined; readonly section?: Section | undefined };

/** The route a hash names; anything unknown is the org picker. */
function parseRoute(hash: string): Route {
  const match = /^#\/org\/(\d{1,15})\/(\w+)(?:\/(\d{1,15})(?:\/(deliveries))?)?$/.exec(hash);
  const page = ORG_PAGES.find((p) => p.page === match?.[2]);
  if (!match || !page || (match[3] !== undefined && !ITEM_PAGES.has(page.page))) return { page: 'orgs' };
  // Only an endpoint's page has deliveries.
  if (match[4] !== undefined && page.page !== 'webhooks') return { page: 'orgs' };
  const itemId = match[3] === undefined ? undefined : Number(match[3]);
  return { page: page.page, orgId: Number(match[1]), itemId, section: match[4] as Section | undefined };
}

/** The hash of a route. */
export function routeHash(route: Route): string {
  if (route.page === 'orgs') return '#/';
  const item = route.itemId === undefined ? '' : `/${route.itemId}${route.section === undefined ? '' : `/${route.section}`}`;
  return `#/org/${route.orgId}/${route.page}${item}`;
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
