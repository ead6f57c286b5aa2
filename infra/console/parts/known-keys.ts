/**
 * The organization's keys by id, so that pages whose data names a key by its id only (the usage
 * report, the audit log) can show which key it is: its name and prefix, as the keys page lists them.
 */
import { useMemo } from 'preact/hooks';
import { data, ofOrg, type ApiKey } from '../api';
import { useApi } from './api-context';
import { useLoad } from './load';

/** The keys the signed-in member may list, and how each key id reads. */
export interface KnownKeys {
  /** False until the list is in (or known not to come): a page may wait, so its labels do not change under the reader. */
  readonly ready: boolean;
  /** The org's keys, as list-keys gives them; empty for a role that may not list keys. */
  readonly keys: readonly ApiKey[];
  /** The listed key of an id, if any. */
  readonly get: (id: number) => ApiKey | undefined;
  /** "Browser key (dpk_737d…) #3"; a key not listed (a role that may not list keys, a deleted key) reads "#3". */
  readonly label: (id: number) => string;
}

/** A key as the subject of a caption: its label, or "key #3" when not listed. */
export function subjectOf(id: number, known: KnownKeys): string {
  return known.get(id) ? known.label(id) : `key #${id}`;
}

/** Never settles: nothing is asked while the role is not known. */
const notYet = new Promise<never>(() => undefined);

/**
 * The keys of `orgId`. `mayList`: whether the member's role may list keys (`may(org, 'keys')`);
 * undefined while that is not known yet (list-orgs still loading), and nothing is asked then, so a
 * role that may not is never sent. A refusal (an org opened by its id, whose role the console does
 * not know) or a failure leaves the ids as they are, with no message: the page works without names.
 */
export function useKnownKeys(orgId: number, mayList: boolean | undefined): KnownKeys {
  const api = useApi();
  const [loaded] = useLoad<readonly ApiKey[]>(
    () =>
      mayList === undefined ? notYet : mayList ? data(api.GET('/api/org-api-keys', ofOrg(orgId))).catch(() => []) : Promise.resolve([]),
    [orgId, mayList],
  );
  return useMemo(() => ({ ...knownFrom(loaded.state === 'ready' ? loaded.data : []), ready: loaded.state === 'ready' }), [loaded]);
}

/** The {@link KnownKeys} of a list of keys already loaded (a key's page has it). */
export function knownFrom(keys: readonly ApiKey[]): KnownKeys {
  const byId = new Map(keys.map((k) => [k.id, k]));
  const get = (id: number) => byId.get(id);
  const label = (id: number) => {
    const key = byId.get(id);
    // The prefix marked as the start of the key: the id follows it.
    return key ? `${key.name} (${key.key_prefix}…) #${id}` : `#${id}`;
  };
  return { ready: true, keys, get, label };
}
