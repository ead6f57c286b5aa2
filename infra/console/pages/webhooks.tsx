/**
 * The webhook endpoints of an organization (docs/webhooks.md): one line per endpoint (its URL, a
 * link to the endpoint's page, its events and state) with its actions in one menu, and "Add an
 * endpoint" (the signing secret shown once). Every change reloads the list, so it always shows
 * what the service holds; a refusal shows the service's own message (the tier an operation needs,
 * "resume it first"). Deliveries are on each endpoint's page (the menu's "Deliveries" opens them).
 */
import { data, ofOrg, type OrgMembership, type Webhook } from '../api';
import { useApi } from '../parts/api-context';
import { flash } from '../parts/flash';
import { when } from '../parts/format';
import { Badge } from '../parts/badge';
import { useLoad } from '../parts/load';
import { Cell, Loading, Notice, PageHeading, TableRegion } from '../parts/page';
import { RowMenu, type MenuItem } from '../parts/row-menu';
import { eventsText, filterText } from '../parts/webhook-events';
import { may } from '../roles';
import { routeHash } from '../router';
import { testSent, useWebhookActions } from './webhook-actions';

/**
 * The webhooks page of `orgId`. Its tab shows only to owners and admins; a member of another role
 * who opens it anyway gets no "Add an endpoint", and the service's refusal of the list says who may.
 */
export function WebhooksPage({ orgId, org }: { orgId: number; org: OrgMembership | undefined }) {
  const api = useApi();
  const [loaded, reload] = useLoad(() => data(api.GET('/api/org-api-keys/list-webhooks', ofOrg(orgId))), [orgId]);
  // A test event sent from the list: its endpoint's page follows the delivery, and says it was sent.
  const actions = useWebhookActions({
    orgId,
    changed: reload,
    tested: (webhook) => {
      flash({ kind: 'success', text: testSent(webhook) });
      location.hash = routeHash({ page: 'webhooks', orgId, itemId: webhook.id, section: 'deliveries' });
    },
  });
  // Each row's menu opens the endpoint's deliveries first, then its actions.
  const items = (webhook: Webhook): MenuItem[] => [
    { label: 'Deliveries', run: () => (location.hash = routeHash({ page: 'webhooks', orgId, itemId: webhook.id, section: 'deliveries' })) },
    ...actions.items(webhook),
  ];
  return (
    <>
      <PageHeading>Webhooks</PageHeading>
      <p>
        Endpoints of this organization receive its events as signed HTTP requests (Standard Webhooks): verify them with the endpoint’s
        secret.
      </p>
      {may(org, 'webhooks') && (
        <p>
          <button type="button" class="primary" onClick={actions.create}>
            Add an endpoint
          </button>
        </p>
      )}
      {actions.outcome && <Notice kind={actions.outcome.kind}>{actions.outcome.text}</Notice>}
      <Loading loaded={loaded}>{(webhooks) => <WebhooksTable orgId={orgId} webhooks={webhooks} items={items} />}</Loading>
      {actions.dialog}
    </>
  );
}

/** The table's columns, in order (a narrow screen's cards label each value with its column). */
const COLUMNS = ['URL', 'Id', 'Events', 'Status', 'Created', 'Actions'] as const;

interface TableProps {
  readonly orgId: number;
  readonly webhooks: readonly Webhook[];
  readonly items: (webhook: Webhook) => MenuItem[];
}

/** The endpoints, one line each at desktop widths, cards on a narrow screen (views.css). */
function WebhooksTable({ orgId, webhooks, items }: TableProps) {
  if (webhooks.length === 0) return <p>No endpoints yet.</p>;
  return (
    <TableRegion label="Webhook endpoints" class="list fits cards" heads={COLUMNS}>
      {webhooks.map((webhook) => (
        <tr key={webhook.id} data-webhook-id={webhook.id}>
          <th scope="row">
            <a href={routeHash({ page: 'webhooks', orgId, itemId: webhook.id })}>{webhook.url}</a>
            {webhook.description && <span class="sub">{webhook.description}</span>}
            {webhook.filter && <span class="sub">{filterText(webhook.filter)}</span>}
            {webhook.key_id !== null && (
              <span class="sub">Bound to API key #{webhook.key_id}: its allowed games and streams, its key events</span>
            )}
          </th>
          <Cell column="Id" class="id">
            #{webhook.id}
          </Cell>
          <Cell column="Events" class="events">
            {eventsText(webhook.events)}
          </Cell>
          <Cell column="Status" class="status">
            <Badge text={webhook.is_active ? 'Active' : 'Paused'} tone={webhook.is_active ? 'ok' : 'off'} />
          </Cell>
          <Cell column="Created">{when(webhook.created_at)}</Cell>
          <Cell column="Actions" class="actions">
            <RowMenu of={`endpoint #${webhook.id}`} items={items(webhook)} />
          </Cell>
        </tr>
      ))}
    </TableRegion>
  );
}
