/**
 * Games and streams of the organization, each with its "Require API Session Token" switch (what the
 * specification puts in a game's Configuration tab) and how its play pages start (`start`:
 * docs/play-pages.md#starting-the-game). A member whose role or tier may not change
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
  // What each control shows while its change is sent: the admin's choice, not the list's old value.
  const [shown, setShown] = useState<Record<string, Shown>>({});
  // A list just read holds what was saved: the controls show it again (and a later change by someone else).
  useEffect(() => setShown({}), [loaded]);
  const change = async (kind: 'game' | 'stream', target: Target, changes: Shown, done: string) => {
    const at = `${kind}-${idOf(target)}`;
    setShown((now) => ({ ...now, [at]: { ...now[at], ...changes } }));
    try {
      const body = { org_id: orgId, ...changes };
      await ('game_id' in target
        ? api.PATCH('/api/org-api-keys/update-game', { body: { ...body, game_id: target.game_id } })
        : api.PATCH('/api/org-api-keys/update-stream', { body: { ...body, stream_id: target.stream_id } }));
      setMessage({ kind: 'success', text: `${target.name}: ${done}. Play pages follow within 5 seconds.` });
      reload();
    } catch (error) {
      const { message, status } = failure(error);
      setShown(({ [at]: _refused, ...rest }) => rest);
      if (status === 403) setRefused(true);
      setMessage({ kind: 'error', text: message });
    }
  };
  const onToggle = (kind: 'game' | 'stream', target: Target, required: boolean) =>
    void change(kind, target, { require_session_token: required }, `session token ${required ? 'required' : 'no longer required'}`);
  const onStart = (kind: 'game' | 'stream', target: Target, start: Start) =>
    void change(kind, target, { start }, `play pages start ${START_WORDS[start ?? 'shape'].toLowerCase()}`);
  return (
    <>
      <PageHeading>Games & streams</PageHeading>
      {org && !maySwitchGames(org) && <Notice kind="info">{readOnlyReason(org)}</Notice>}
      {message && <Notice kind={message.kind}>{message.text}</Notice>}
      <Loading loaded={loaded}>
        {(catalog) => (
          <>
            <TargetList
              kind="game"
              title="Games"
              targets={catalog.games}
              shown={shown}
              readOnly={readOnly}
              onToggle={onToggle}
              onStart={onStart}
            />
            <TargetList
              kind="stream"
              title="Streams"
              targets={catalog.streams}
              shown={shown}
              readOnly={readOnly}
              onToggle={onToggle}
              onStart={onStart}
            />
          </>
        )}
      </Loading>
    </>
  );
}

/** A game's or stream's start mode (null: by page shape). */
type Start = Target['start'];

/** Settings the admin just chose, shown over the list's values while they are sent. */
type Shown = { readonly require_session_token?: boolean; readonly start?: Start };

/** The start modes as the select offers them (`shape`: null, each page shape's default). */
const START_WORDS = {
  shape: 'By page shape (Play button; at once when embedded)',
  click: 'On a click on Play',
  auto: 'At once',
} as const;

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
  /** Settings the admin just chose, by `<kind>-<id>`, shown over the list's values. */
  readonly shown: Readonly<Record<string, Shown>>;
  readonly readOnly: boolean;
  readonly onToggle: (kind: 'game' | 'stream', target: Target, required: boolean) => void;
  readonly onStart: (kind: 'game' | 'stream', target: Target, start: Start) => void;
}

function TargetList({ kind, title, targets, shown, readOnly, onToggle, onStart }: ListProps) {
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
            const now = shown[`${kind}-${id}`];
            const start = now?.start !== undefined ? now.start : target.start;
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
                    checked={now?.require_session_token ?? target.require_session_token}
                    disabled={readOnly}
                    onChange={(e) => onToggle(kind, target, e.currentTarget.checked)}
                  />
                  Require API Session Token<span class="visually-hidden"> for {target.name}</span>
                </label>
                <label class="start-mode" for={`start-${kind}-${id}`}>
                  Start<span class="visually-hidden"> {target.name}</span>{' '}
                  <select
                    id={`start-${kind}-${id}`}
                    value={start ?? 'shape'}
                    disabled={readOnly}
                    onChange={(e) =>
                      onStart(kind, target, e.currentTarget.value === 'shape' ? null : (e.currentTarget.value as 'click' | 'auto'))
                    }
                  >
                    {Object.entries(START_WORDS).map(([value, words]) => (
                      <option key={value} value={value}>
                        {words}
                      </option>
                    ))}
                  </select>
                </label>
              </li>
            );
          })}
        </ul>
      )}
    </section>
  );
}
