/**
 * The signed-in console: a header (organization, pages, sign-out), and the page of the route. On
 * every page change the page's heading takes the focus, so keyboard and screen-reader users land
 * on the new content (and hear its name) as they would on a new document.
 */
import { useEffect, useRef } from 'preact/hooks';
import { data, type Api, type OrgMembership } from './api';
import type { Session } from './auth';
import { ApiContext } from './parts/api-context';
import { useLoad, type Loaded } from './parts/load';
import { AuditPage } from './pages/audit';
import { GamesPage } from './pages/games';
import { KeyPage } from './pages/key-page';
import { KeysPage } from './pages/keys';
import { landingPage, OrgPicker } from './pages/orgs';
import { UsagePage } from './pages/usage';
import { WebhookPage } from './pages/webhook-page';
import { WebhooksPage } from './pages/webhooks';
import { may } from './roles';
import { ORG_PAGES, routeHash, useRoute, type Route } from './router';

/** Props of {@link App}. */
export interface AppProps {
  readonly api: Api;
  readonly session: Session;
  readonly onSignOut: () => void;
}

/** The console once signed in. */
export function App({ api, session, onSignOut }: AppProps) {
  const route = useRoute();
  // Once per sign-in: the picker lists them, and each org's pages name the role they are seen with.
  const [orgs] = useLoad(() => data(api.GET('/api/org-api-keys/list-orgs')).then((d) => d.orgs), [api]);
  useOnlyOrg(orgs, route);
  return (
    <ApiContext.Provider value={api}>
      <a class="skip" href="#main" onClick={skipToMain}>
        Skip to content
      </a>
      <header class="bar">
        <a class="brand" href="#/">
          Game Session Tokens
        </a>
        <span class="who">
          Signed in as <strong>{session.name}</strong>
        </span>
        <button type="button" onClick={onSignOut}>
          Sign out
        </button>
      </header>
      {route.page !== 'orgs' && <OrgNav route={route} org={orgIn(orgs, route)} />}
      <main id="main" tabIndex={-1}>
        <Page route={route} orgs={orgs} />
      </main>
    </ApiContext.Provider>
  );
}

/**
 * An admin of exactly one organization lands in it: once the list comes in, the picker (where a
 * sign-in lands) is replaced by the org's first page, in place (Back does not return to a picker
 * that would leave again). Once per sign-in: "Organizations" then shows the picker as asked.
 */
function useOnlyOrg(orgs: Loaded<OrgMembership[]>, route: Route): void {
  const opened = useRef(false);
  useEffect(() => {
    if (opened.current || orgs.state !== 'ready') return;
    opened.current = true;
    const only = orgs.data.length === 1 ? orgs.data[0]! : undefined;
    if (only && route.page === 'orgs') location.replace(routeHash({ page: landingPage(only), orgId: only.org_id }));
  }, [orgs]);
}

/** The skip link moves the focus itself: a hash link would change the route. */
function skipToMain(event: Event): void {
  event.preventDefault();
  document.getElementById('main')?.focus();
}

/** The membership of the route's organization; undefined while the list loads, or when it is not listed. */
function orgIn(orgs: Loaded<OrgMembership[]>, route: Route): OrgMembership | undefined {
  if (route.page === 'orgs' || orgs.state !== 'ready') return undefined;
  return orgs.data.find((o) => o.org_id === route.orgId);
}

/** The pages of the organization in view, with the role the subject has there (what it may change). */
function OrgNav({ route, org }: { route: Exclude<Route, { page: 'orgs' }>; org: OrgMembership | undefined }) {
  return (
    <nav class="tabs" aria-label={`Organization ${route.orgId}`}>
      <a href="#/">Organizations</a>
      {ORG_PAGES.filter((p) => !('needs' in p) || may(org, p.needs)).map(({ page, label }) => (
        <a
          key={page}
          href={routeHash({ page, orgId: route.orgId })}
          aria-current={page === route.page && route.itemId === undefined ? 'page' : page === route.page ? 'true' : undefined}
        >
          {label}
        </a>
      ))}
      {org && (
        <span class="role">
          {org.name} · your role: {org.role}
        </span>
      )}
    </nav>
  );
}

/** The route's page; those with controls get the membership, to show what the role may not do up front. */
function Page({ route, orgs }: { route: Route; orgs: Loaded<OrgMembership[]> }) {
  const org = orgIn(orgs, route);
  // Whether the usage and audit pages may name keys (list-keys); undefined until the role is known.
  const mayListKeys = orgs.state === 'loading' ? undefined : may(org, 'keys');
  switch (route.page) {
    case 'orgs':
      return <OrgPicker orgs={orgs} />;
    case 'keys':
      if (route.itemId !== undefined)
        return <KeyPage key={`${route.orgId}/${route.itemId}`} orgId={route.orgId} keyId={route.itemId} org={org} />;
      return <KeysPage key={route.orgId} orgId={route.orgId} org={org} />;
    case 'usage':
      return <UsagePage key={route.orgId} orgId={route.orgId} mayListKeys={mayListKeys} />;
    case 'audit':
      return <AuditPage key={route.orgId} orgId={route.orgId} mayListKeys={mayListKeys} />;
    case 'games':
      return <GamesPage key={route.orgId} orgId={route.orgId} org={org} />;
    case 'webhooks':
      if (route.itemId !== undefined) {
        return (
          <WebhookPage
            key={`${route.orgId}/${route.itemId}`}
            orgId={route.orgId}
            webhookId={route.itemId}
            org={org}
            toDeliveries={route.section === 'deliveries'}
          />
        );
      }
      return <WebhooksPage key={route.orgId} orgId={route.orgId} org={org} />;
  }
}
