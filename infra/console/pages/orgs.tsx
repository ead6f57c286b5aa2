/**
 * The organization picker: the organizations the signed-in subject belongs to (`list-orgs`), each
 * with its role and tier, opening on the first page that role may read. Typing an id stays possible
 * only when the list is empty: a membership stored before list-orgs shows there once the deployment's
 * backfill has run (docs/deploy.md), and until then the admin can still open the org by its id.
 */
import { useState } from 'preact/hooks';
import { ofOrg, type OrgMembership } from '../api';
import { useApi } from '../parts/api-context';
import { failure, type Loaded } from '../parts/load';
import { Loading, Notice, PageHeading } from '../parts/page';
import { may } from '../roles';
import { routeHash, type OrgPage } from '../router';

/** The first page a role may read (docs/console.md, "Roles"): no one lands on a refusal. */
export function landingPage(org: OrgMembership): OrgPage {
  if (may(org, 'keys')) return 'keys';
  return may(org, 'usage') ? 'usage' : 'games';
}

/** Pick the organization to administer among the signed-in subject's. */
export function OrgPicker({ orgs }: { orgs: Loaded<OrgMembership[]> }) {
  return (
    <>
      <PageHeading>Organizations</PageHeading>
      <Loading loaded={orgs}>
        {(list) =>
          list.length > 0 ? (
            <ul class="orgs">
              {list.map((org) => (
                <li key={org.org_id}>
                  <a href={routeHash({ page: landingPage(org), orgId: org.org_id })}>
                    <strong>{org.name}</strong>{' '}
                    <span>
                      organization {org.org_id} · your role: {org.role} · {org.tier} tier
                    </span>
                  </a>
                </li>
              ))}
            </ul>
          ) : (
            <OpenById />
          )
        }
      </Loading>
    </>
  );
}

/** No membership listed: open an organization by its id (checked with list-games, which every member may read). */
function OpenById() {
  const api = useApi();
  const [orgId, setOrgId] = useState('');
  const [problem, setProblem] = useState<string>();
  const [busy, setBusy] = useState(false);
  const open = async (event: Event) => {
    event.preventDefault();
    const id = Number(orgId);
    if (!Number.isSafeInteger(id) || id < 1) return setProblem('An organization id is a positive whole number.');
    setBusy(true);
    setProblem(undefined);
    try {
      await api.GET('/api/org-api-keys/list-games', ofOrg(id));
      location.hash = routeHash({ page: 'keys', orgId: id });
    } catch (error) {
      setProblem(failure(error).message);
    } finally {
      setBusy(false);
    }
  };
  return (
    <>
      <p>You are not listed as a member of any organization yet.</p>
      <form class="inline" onSubmit={open}>
        <label for="org-id">Organization id</label>
        <input id="org-id" inputMode="numeric" pattern="[0-9]*" required value={orgId} onInput={(e) => setOrgId(e.currentTarget.value)} />
        <button type="submit" class="primary" disabled={busy}>
          Open
        </button>
      </form>
      <p class="hint">Your organization’s id is in your onboarding mail.</p>
      {problem && <Notice kind="error">{problem}</Notice>}
    </>
  );
}
