/**
 * One endpoint's page (`#/org/1/webhooks/5`): its state and actions, its health (the last
 * delivery's outcome, since when its attempts fail, as the service keeps it on the endpoint, and
 * why it is paused: the service's own disabling, a 410 or five days of failures, or an admin's
 * pause, both from the audit log), the event types it receives, and its deliveries
 * (webhook-deliveries.tsx). A test event sent, and the `…/deliveries` route (the list's
 * "Deliveries", a test sent from the list), bring the deliveries into view: on a phone they are
 * below the health and the events.
 */
import { useState } from 'preact/hooks';
import { data, ofOrg, type AuditRecord, type OrgMembership, type Webhook, type WebhookDelivery } from '../api';
import { useApi } from '../parts/api-context';
import { Badge } from '../parts/badge';
import { shortValue } from '../parts/format';
import { useLoad } from '../parts/load';
import { Loading, Notice, PageHeading } from '../parts/page';
import { ActionButtons } from '../parts/row-menu';
import { Time } from '../parts/time';
import { ALL_EVENTS, EVENT_TYPES, filterText } from '../parts/webhook-events';
import { may } from '../roles';
import { routeHash } from '../router';
import { useWebhookActions } from './webhook-actions';
import { DELIVERY_STATUS, WebhookDeliveries } from './webhook-deliveries';

/** Props of {@link WebhookPage}. */
export interface WebhookPageProps {
  readonly orgId: number;
  readonly webhookId: number;
  readonly org: OrgMembership | undefined;
  /** The route names the deliveries: they are brought into view once shown. */
  readonly toDeliveries: boolean;
}

/** The page of endpoint `webhookId` of `orgId`. */
export function WebhookPage({ orgId, webhookId, org, toDeliveries }: WebhookPageProps) {
  const api = useApi();
  const [loaded, reload] = useLoad(() => data(api.GET('/api/org-api-keys/list-webhooks', ofOrg(orgId))), [orgId]);
  // Bumped by each test event sent: the deliveries load again from the newest and follow it.
  const [round, setRound] = useState(0);
  const [newest, setNewest] = useState<readonly WebhookDelivery[]>();
  const actions = useWebhookActions({
    orgId,
    changed: reload,
    tested: () => setRound((n) => n + 1),
    sent: () => setRound((n) => n + 1),
    deleted: () => (location.hash = routeHash({ page: 'webhooks', orgId })),
  });
  const webhook = loaded.state === 'ready' ? loaded.data.find((w) => w.id === webhookId) : undefined;
  return (
    <>
      <p class="back">
        <a href={routeHash({ page: 'webhooks', orgId })}>← Webhooks</a>
      </p>
      <PageHeading>Endpoint #{webhookId}</PageHeading>
      {actions.outcome && <Notice kind={actions.outcome.kind}>{actions.outcome.text}</Notice>}
      <Loading loaded={loaded}>
        {() =>
          webhook ? (
            <>
              <p class="summary">
                <Badge text={webhook.is_active ? 'Active' : 'Paused'} tone={webhook.is_active ? 'ok' : 'off'} />{' '}
                <span class="url">{webhook.url}</span>
                {webhook.description && <span class="sub">{webhook.description}</span>}
              </p>
              {may(org, 'webhooks') && <ActionButtons label="Endpoint actions" items={actions.items(webhook)} />}
              <Health orgId={orgId} webhook={webhook} newest={newest} />
              <Events webhook={webhook} />
              <WebhookDeliveries orgId={orgId} webhook={webhook} round={round} reveal={toDeliveries || round > 0} onNewest={setNewest} />
            </>
          ) : (
            <Notice kind="error">No endpoint #{webhookId} in this organization (it may have been deleted).</Notice>
          )
        }
      </Loading>
      {actions.dialog}
    </>
  );
}

/** The last delivery's outcome, since when attempts fail (the endpoint's `failing_since`), and why the endpoint is paused. */
function Health({ orgId, webhook, newest }: { orgId: number; webhook: Webhook; newest: readonly WebhookDelivery[] | undefined }) {
  const last = newest?.[0];
  return (
    <section aria-labelledby="endpoint-health">
      <h2 id="endpoint-health">Health</h2>
      <dl class="facts">
        <dt>Last delivery</dt>
        <dd>
          {newest === undefined ? (
            'Loading…'
          ) : last ? (
            <>
              <Badge {...DELIVERY_STATUS[last.status]} /> {last.event_type}
              {last.last_status_code !== null && `, answered ${last.last_status_code}`},{' '}
              <Time iso={last.last_attempt_at ?? last.created_at} />
            </>
          ) : (
            'none yet'
          )}
        </dd>
        <dt>Failing since</dt>
        <dd>
          {webhook.failing_since ? (
            <>
              <Time iso={webhook.failing_since} /> (every attempt since has failed)
            </>
          ) : (
            'not failing'
          )}
        </dd>
        {!webhook.is_active && (
          <>
            <dt>Why paused</dt>
            <dd>
              <WhyPaused orgId={orgId} webhookId={webhook.id} />
            </dd>
          </>
        )}
      </dl>
    </section>
  );
}

/** Records read from each action's newest to find the endpoint's pause. */
const PAUSE_RECORDS = 50;

/**
 * Who or what paused the endpoint, from the audit log: the delivery worker's `disable-webhook` (a
 * 410 answered, or five days of failures, its `disabled_reason`) or an admin's `update-webhook`
 * that set `is_active` false, whichever is newer.
 */
function WhyPaused({ orgId, webhookId }: { orgId: number; webhookId: number }) {
  const api = useApi();
  const [loaded] = useLoad(async () => {
    const newestOf = async (action: string, matches: (r: AuditRecord) => boolean) => {
      const query = { audit_action: action, outcome: 'success', limit: String(PAUSE_RECORDS) } as const;
      const page = await data(api.GET('/api/org-api-keys/audit-log', ofOrg(orgId, query)));
      return page.records.find((r) => r.webhook_id === webhookId && matches(r));
    };
    const [disabled, paused] = await Promise.all([
      newestOf('disable-webhook', () => true),
      newestOf('update-webhook', (r) => r.diff?.is_active?.after === false),
    ]);
    if (disabled && (!paused || disabled.at > paused.at)) return { record: disabled, by: 'service' as const };
    return paused ? { record: paused, by: 'admin' as const } : undefined;
  }, [orgId, webhookId]);
  return (
    <Loading loaded={loaded}>
      {(found) =>
        !found ? (
          'The recent audit log does not say.'
        ) : found.by === 'service' ? (
          <>
            Paused by the service at <Time iso={found.record.at} />: {shortValue(found.record.diff?.disabled_reason?.after)}. Resume it once
            the receiver is fixed.
          </>
        ) : (
          <>
            Paused by {found.record.actor ?? 'an admin'} at <Time iso={found.record.at} />.
          </>
        )
      }
    </Loading>
  );
}

/** The event types the endpoint receives, and whose: its filter and the API key it is bound to. */
function Events({ webhook }: { webhook: Webhook }) {
  const { events } = webhook;
  const all = events.includes(ALL_EVENTS);
  return (
    <section aria-labelledby="endpoint-events">
      <h2 id="endpoint-events">Events</h2>
      {all ? (
        <p>All events: every type, those added later included.</p>
      ) : (
        <ul>
          {EVENT_TYPES.filter(([type]) => events.includes(type)).map(([type, hint]) => (
            <li key={type}>
              <code>{type}</code>: {hint}
            </li>
          ))}
        </ul>
      )}
      <p>{webhook.filter ? `${filterText(webhook.filter)}.` : 'Session events of every game and stream.'}</p>
      {webhook.key_id !== null && <p>Bound to API key #{webhook.key_id}: its allowed games and streams, and only its own key events.</p>}
    </section>
  );
}
