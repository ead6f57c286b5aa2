/**
 * Games and streams of the organization, each with its "Require API Session Token" switch (what the
 * specification puts in a game's Configuration tab). A member whose role or tier may not change
 * them (known from list-orgs) sees the switches read-only from the start, and why; should the
 * service refuse a change anyway (an org opened by its id, a role changed since), the refusal is
 * shown and the switches turn read-only then.
 */
import { useEffect, useState } from 'preact/hooks';
import { data, ofOrg, type OrgMembership, type Target } from '../api';
import { useApi } from '../parts/api-context';
import { failure, useLoad } from '../parts/load';
import { Loading, Notice, PageHeading } from '../parts/page';
import { may, maySwitchGames } from '../roles';

/** The games and streams page of `orgId`; `org` is the subject's membership there, when listed. */
export function GamesPage({ orgId, org }: { orgId: number; org: OrgMembership | undefined }) {
  const api = useApi();
  const [loaded, reload] = useLoad(() => data(api.GET('/api/org-api-keys/list-games', ofOrg(orgId))), [orgId]);
  const [message, setMessage] = useState<{ kind: 'error' | 'success'; text: string }>();
  const [refused, setRefused] = useState(false);
  const readOnly = refused || !maySwitchGames(org);
  // What each switch shows while its change is sent: the admin's choice, not the list's old value.
  const [shown, setShown] = useState<Record<string, boolean>>({});
  // A list just read holds what was saved: the switches show it again (and a later change by someone else).
  useEffect(() => setShown({}), [loaded]);
  const toggle = async (kind: 'game' | 'stream', target: Target, required: boolean) => {
    const id = idOf(target);
    setShown((now) => ({ ...now, [`${kind}-${id}`]: required }));
    try {
      const change = { org_id: orgId, require_session_token: required };
      await ('game_id' in target
        ? api.PATCH('/api/org-api-keys/update-game', { body: { ...change, game_id: target.game_id } })
        : api.PATCH('/api/org-api-keys/update-stream', { body: { ...change, stream_id: target.stream_id } }));
      setMessage({
        kind: 'success',
        text: `${target.name}: session token ${required ? 'required' : 'no longer required'}. Play pages follow within 5 seconds.`,
      });
      reload();
    } catch (error) {
      const { message, status } = failure(error);
      setShown(({ [`${kind}-${id}`]: _refused, ...rest }) => rest);
      if (status === 403) setRefused(true);
      setMessage({ kind: 'error', text: message });
    }
  };
  return (
    <>
      <PageHeading>Games & streams</PageHeading>
      {org && !maySwitchGames(org) && <Notice kind="info">{readOnlyReason(org)}</Notice>}
      {message && <Notice kind={message.kind}>{message.text}</Notice>}
      <Loading loaded={loaded}>
        {(catalog) => (
          <>
            <TargetList kind="game" title="Games" targets={catalog.games} shown={shown} readOnly={readOnly} onToggle={toggle} />
            <TargetList kind="stream" title="Streams" targets={catalog.streams} shown={shown} readOnly={readOnly} onToggle={toggle} />
          </>
        )}
      </Loading>
    </>
  );
}

/** A game's or a stream's id. */
const idOf = (target: Target) => ('game_id' in target ? target.game_id : target.stream_id);

/** Why the switches are read-only for this member: the role, or the tier. */
function readOnlyReason(org: OrgMembership): string {
  if (!may(org, 'catalogWrite')) {
    return `Read-only: your role (${org.role}) may see the games and streams; owners, admins and editors switch them.`;
  }
  return `Read-only: switching needs the Business tier or higher (${org.name} is on ${org.tier}).`;
}

interface ListProps {
  readonly kind: 'game' | 'stream';
  readonly title: string;
  readonly targets: readonly Target[];
  /** Switch states the admin just chose, by `<kind>-<id>`, shown over the list's values. */
  readonly shown: Readonly<Record<string, boolean>>;
  readonly readOnly: boolean;
  readonly onToggle: (kind: 'game' | 'stream', target: Target, required: boolean) => void;
}

function TargetList({ kind, title, targets, shown, readOnly, onToggle }: ListProps) {
  return (
    <section aria-labelledby={`${kind}s-title`}>
      <h2 id={`${kind}s-title`}>{title}</h2>
      {targets.length === 0 ? (
        <p>None.</p>
      ) : (
        <ul class="targets">
          {targets.map((target) => {
            const id = idOf(target);
            const control = `require-${kind}-${id}`;
            return (
              <li key={id} data-target={`${kind}-${id}`}>
                <span class="target-name">
                  {target.name} <span class="sub">#{id}</span>
                  {target.play_url && (
                    <a class="sub" href={target.play_url} target="_blank" rel="noopener noreferrer">
                      Play page<span class="visually-hidden"> of {target.name} (opens a new tab)</span>
                    </a>
                  )}
                </span>
                <label class="switch" for={control}>
                  <input
                    id={control}
                    type="checkbox"
                    role="switch"
                    checked={shown[`${kind}-${id}`] ?? target.require_session_token}
                    disabled={readOnly}
                    onChange={(e) => onToggle(kind, target, e.currentTarget.checked)}
                  />
                  Require API Session Token<span class="visually-hidden"> for {target.name}</span>
                </label>
              </li>
            );
          })}
        </ul>
      )}
    </section>
  );
}
