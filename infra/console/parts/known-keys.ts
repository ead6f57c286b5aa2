/**
 * The organization's keys by id, so that pages whose data names a key by its id only (the usage
 * report, the audit log) can show which key it is: its name and prefix, as the keys page lists them.
 */
import { useEffect, useMemo, useState } from 'preact/hooks';
import type { ApiKey } from '../api';
import { useApi } from './api-context';

/** The keys the signed-in member may list, and how each key id reads. */
export interface KnownKeys {
  /** False until the list is in (or known not to come): a page may wait, so its labels do not change under the reader. */
  readonly ready: boolean;
  /** The org's keys, as list-keys gives them; empty for a role that may not list keys. */
  readonly keys: readonly ApiKey[];
  /** "Browser key (dpk_737d…) #3"; a key not listed (a role that may not list keys, a deleted key) reads "#3". */
  readonly label: (id: number) => string;
  /** The key as the subject of a caption: its label, or "key #3" when not listed. */
  readonly subject: (id: number) => string;
}

/** How a key reads wherever its id appears: name, prefix and id (the keys page's Id column). */
function keyLabel(id: number, key: Pick<ApiKey, 'name' | 'key_prefix'> | undefined): string {
  return key ? `${key.name} (${key.key_prefix}…) #${id}` : `#${id}`;
}

/**
 * The keys of `orgId`. `mayList`: whether the member's role may list keys (`may(org, 'keys')`);
 * undefined while that is not known yet (list-orgs still loading), and nothing is asked then, so a
 * role that may not is never sent. A refusal (an org opened by its id, whose role the console does
 * not know) or a failure leaves the ids as they are, with no message: the page works without names.
 */
export function useKnownKeys(orgId: number, mayList: boolean | undefined): KnownKeys {
  const api = useApi();
  const asked = `${orgId}:${mayList}`;
  const [answer, setAnswer] = useState<{ asked: string; keys: readonly ApiKey[] }>();
  useEffect(() => {
    if (mayList === undefined) return;
    let current = true;
    const listed = mayList ? api.get<ApiKey[]>(undefined, { org_id: orgId }) : Promise.resolve([]);
    listed.catch((): ApiKey[] => []).then((keys) => current && setAnswer({ asked, keys }));
    return () => {
      current = false;
    };
  }, [api, asked]);
  return useMemo(() => {
    const ready = answer?.asked === asked;
    const keys = ready ? answer.keys : [];
    const byId = new Map(keys.map((k) => [k.id, k]));
    const label = (id: number) => keyLabel(id, byId.get(id));
    return { ready, keys, label, subject: (id: number) => (byId.has(id) ? label(id) : `key #${id}`) };
  }, [answer, asked]);
}
