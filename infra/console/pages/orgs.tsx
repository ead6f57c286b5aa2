/**
 * The organization picker. The API has no "my organizations" call, so the admin opens one by its id;
 * the console checks the membership with list-games (every member may read it) and remembers the
 * organizations that answered, on this browser (ids and names only, nothing secret).
 */
import { useState } from 'preact/hooks';
import type { Catalog } from '../api';
import { useApi } from '../parts/api-context';
import { failure } from '../parts/load';
import { Notice, PageHeading } from '../parts/page';
import { routeHash } from '../router';

const REMEMBERED = 'console.orgs';

/** The organizations this browser opened before. */
function remembered(): number[] {
  try {
    const ids = JSON.parse(localStorage.getItem(REMEMBERED) ?? '[]') as unknown;
    return Array.isArray(ids) ? ids.filter((id): id is number => Number.isSafeInteger(id) && id > 0) : [];
  } catch {
    return [];
  }
}

function remember(orgId: number): void {
  localStorage.setItem(REMEMBERED, JSON.stringify([orgId, ...remembered().filter((id) => id !== orgId)].slice(0, 10)));
}

/** Pick the organization to administer. */
export function OrgPicker() {
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
      await api.get<Catalog>('list-games', { org_id: id });
      remember(id);
      location.hash = routeHash({ page: 'keys', orgId: id });
    } catch (error) {
      setProblem(failure(error).message);
    } finally {
      setBusy(false);
    }
  };
  const known = remembered();
  return (
    <>
      <PageHeading>Organizations</PageHeading>
      {known.length > 0 && (
        <section aria-labelledby="known-orgs">
          <h2 id="known-orgs">Opened on this browser</h2>
          <ul class="orgs">
            {known.map((id) => (
              <li key={id}>
                <a href={routeHash({ page: 'keys', orgId: id })}>Organization {id}</a>
              </li>
            ))}
          </ul>
        </section>
      )}
      <form class="inline" onSubmit={open}>
        <label for="org-id">Organization id</label>
        <input id="org-id" inputMode="numeric" pattern="[0-9]*" required value={orgId} onInput={(e) => setOrgId(e.currentTarget.value)} />
        <button type="submit" class="primary" disabled={busy}>
          Open
        </button>
      </form>
      <p class="hint">Your organization’s id is in your onboarding mail (the demo run: 1 for Acme).</p>
      {problem && <Notice kind="error">{problem}</Notice>}
    </>
  );
}
