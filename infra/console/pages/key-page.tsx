/**
 * One key's page (`#/org/1/keys/3`): its state and actions, its settings, its usage over the last
 * 14 days (sessions and refused calls, a chart and its table), its recent calls and changes from
 * the audit log, and its rotation history (the keys it replaced and was replaced by, and the
 * rotate-key records).
 */
import { useMemo } from 'preact/hooks';
import { data, ofOrg, type ApiKey, type OrgMembership } from '../api';
import { useApi } from '../parts/api-context';
import { AuditTable } from '../parts/audit-table';
import { DayChart } from '../parts/chart';
import { countSeries, CountsTable } from '../parts/counts-table';
import { allowList, utcDay } from '../parts/format';
import { Badge } from '../parts/badge';
import { keyStatus } from '../parts/key-status';
import { knownFrom, type KnownKeys } from '../parts/known-keys';
import { useLoad } from '../parts/load';
import { formatNumber } from '../parts/locale';
import { Loading, Notice, PageHeading } from '../parts/page';
import { ActionButtons } from '../parts/row-menu';
import { Time } from '../parts/time';
import { may } from '../roles';
import { routeHash } from '../router';
import { useKeyActions } from './key-actions';

/** Days of usage the page shows, today included. */
const USAGE_DAYS = 14;
/** Audit records the recent calls show. */
const RECENT_CALLS = 10;

/** The page of key `keyId` of `orgId`. */
export function KeyPage({ orgId, keyId, org }: { orgId: number; keyId: number; org: OrgMembership | undefined }) {
  const api = useApi();
  const [loaded, reload] = useLoad(() => data(api.GET('/api/org-api-keys', ofOrg(orgId))), [orgId]);
  const actions = useKeyActions({ orgId, changed: reload, deleted: () => (location.hash = routeHash({ page: 'keys', orgId })) });
  const known = useMemo(() => knownFrom(loaded.state === 'ready' ? loaded.data : []), [loaded]);
  const key = known.get(keyId);
  return (
    <>
      <p class="back">
        <a href={routeHash({ page: 'keys', orgId })}>← API keys</a>
      </p>
      <PageHeading>{key ? key.name : `Key #${keyId}`}</PageHeading>
      {actions.outcome && <Notice kind={actions.outcome.kind}>{actions.outcome.text}</Notice>}
      <Loading loaded={loaded}>
        {() =>
          key ? (
            <>
              <p class="summary">
                <Badge {...keyStatus(key)} /> <code>{key.key_prefix}</code> #{key.id}
                {key.description && <span class="sub">{key.description}</span>}
              </p>
              {may(org, 'keys') && <ActionButtons label="Key actions" items={actions.items(key)} />}
              <Settings apiKey={key} />
              <KeyUsage orgId={orgId} keyId={keyId} />
              <RecentCalls orgId={orgId} keyId={keyId} known={known} />
              <Rotations orgId={orgId} apiKey={key} known={known} />
            </>
          ) : (
            <Notice kind="error">No key #{keyId} in this organization (it may have been deleted).</Notice>
          )
        }
      </Loading>
      {actions.dialog}
    </>
  );
}

/** What the key may do and until when. */
function Settings({ apiKey: key }: { apiKey: ApiKey }) {
  return (
    <section aria-labelledby="key-settings">
      <h2 id="key-settings">Settings</h2>
      <dl class="facts">
        <dt>Games</dt>
        <dd>{allowList(key.allowed_game_ids)}</dd>
        <dt>Streams</dt>
        <dd>{allowList(key.allowed_stream_ids)}</dd>
        <dt>Limits</dt>
        <dd>
          {formatNumber(key.rate_limit_per_minute)} calls a minute, {formatNumber(key.rate_limit_per_day)} a day
        </dd>
        <dt>MCP scopes</dt>
        <dd>{key.mcp_scopes.length ? key.mcp_scopes.join(', ') : 'none'}</dd>
        <dt>Expires</dt>
        <dd>{key.expires_at ? <Time iso={key.expires_at} /> : 'never'}</dd>
        <dt>Created</dt>
        <dd>
          <Time iso={key.created_at} />
        </dd>
        <dt>Last used</dt>
        <dd>{key.last_used_at ? <Time iso={key.last_used_at} /> : 'never'}</dd>
      </dl>
    </section>
  );
}

/** The key's usage report over the last {@link USAGE_DAYS} days: sessions and refused calls per day. */
function KeyUsage({ orgId, keyId }: { orgId: number; keyId: number }) {
  const api = useApi();
  const [loaded] = useLoad(() => {
    const range = { from: utcDay(new Date(Date.now() - (USAGE_DAYS - 1) * 86_400_000)), to: utcDay(new Date()), key_id: String(keyId) };
    return data(api.GET('/api/org-api-keys/usage', ofOrg(orgId, range)));
  }, [orgId, keyId]);
  return (
    <section aria-labelledby="key-usage">
      <h2 id="key-usage">Usage, last {USAGE_DAYS} days</h2>
      <Loading loaded={loaded}>
        {(report) => {
          const days = report.days.map((d) => d.date);
          const refused = report.totals.rate_limited + report.totals.forbidden;
          return (
            <>
              <p>
                {formatNumber(report.totals.created)} sessions created; {formatNumber(refused)} {refused === 1 ? 'call' : 'calls'} refused (
                {formatNumber(report.totals.rate_limited)} rate-limited, {formatNumber(report.totals.forbidden)} forbidden).
              </p>
              <DayChart
                days={days}
                series={countSeries(report.days)}
                caption={`Sessions and refused calls per day, ${report.from} to ${report.to}`}
              />
              {/* The chart's numbers, folded: the page is about the key, Usage has the tables. */}
              <details>
                <summary>The numbers per day</summary>
                <CountsTable label="Usage per day" rows={report.days.map((d) => ({ head: [d.date], counts: d }))} heads={['Day']} />
              </details>
            </>
          );
        }}
      </Loading>
    </section>
  );
}

/** The newest audit records of the key: the calls it made (and was refused) and the admins' changes to it. */
function RecentCalls({ orgId, keyId, known }: { orgId: number; keyId: number; known: KnownKeys }) {
  const api = useApi();
  const [loaded] = useLoad(
    () => data(api.GET('/api/org-api-keys/audit-log', ofOrg(orgId, { key_id: String(keyId), limit: String(RECENT_CALLS) }))),
    [orgId, keyId],
  );
  return (
    <section aria-labelledby="key-calls">
      <h2 id="key-calls">Recent calls</h2>
      <Loading loaded={loaded}>
        {(page) => <AuditTable records={page.records} known={known} label="Audit records of the recent calls" />}
      </Loading>
      <p>
        <a href={routeHash({ page: 'audit', orgId })}>The whole audit log</a> (filter it by this key for older records).
      </p>
    </section>
  );
}

/** The rotations: the key this one replaced and the one that replaced it, and the rotate-key records of the key. */
function Rotations({ orgId, apiKey: key, known }: { orgId: number; apiKey: ApiKey; known: KnownKeys }) {
  const api = useApi();
  const [loaded] = useLoad(
    () => data(api.GET('/api/org-api-keys/audit-log', ofOrg(orgId, { key_id: String(key.id), audit_action: 'rotate-key', limit: '20' }))),
    [orgId, key.id, key.rotated_to],
  );
  const link = (id: number) => <a href={routeHash({ page: 'keys', orgId, itemId: id })}>{known.label(id)}</a>;
  return (
    <section aria-labelledby="key-rotations">
      <h2 id="key-rotations">Rotation history</h2>
      <ul>
        <li>{key.rotated_from === null ? 'Not made by a rotation.' : <>Replaced {link(key.rotated_from)}.</>}</li>
        <li>{key.rotated_to === null ? 'Not rotated.' : <>Replaced by {link(key.rotated_to)}.</>}</li>
      </ul>
      <Loading loaded={loaded}>
        {(page) => (page.records.length ? <AuditTable records={page.records} known={known} label="Rotations" /> : null)}
      </Loading>
    </section>
  );
}
