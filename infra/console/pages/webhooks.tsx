/**
 * The webhook endpoints of an organization (docs/webhooks.md): the list, and from it add (the
 * signing secret shown once), edit, pause / resume, send a test event, see the deliveries, rotate
 * the secret and delete. Every change reloads the list, so it always shows what the service holds;
 * a refusal shows the service's own message (the tier an operation needs, "resume it first").
 */
import type { ComponentChildren } from 'preact';
import { useState } from 'preact/hooks';
import { data, ofOrg, type CreatedWebhook, type OrgMembership, type RotatedWebhookSecret, type Webhook } from '../api';
import { useApi } from '../parts/api-context';
import { when } from '../parts/format';
import { failure, useLoad } from '../parts/load';
import { Loading, Notice, PageHeading, TableRegion } from '../parts/page';
import { eventsText, filterText } from '../parts/webhook-events';
import { may } from '../roles';
import { DeleteWebhookDialog, RotateWebhookDialog } from './webhook-actions';
import { WebhookDeliveries } from './webhook-deliveries';
import { WebhookForm } from './webhook-form';
import { WebhookSecret } from './webhook-secret';

/** What the page has open over the list. */
type Open =
  | { readonly kind: 'create' }
  | { readonly kind: 'edit' | 'rotate' | 'delete'; readonly webhook: Webhook }
  | { readonly kind: 'secret'; readonly made: CreatedWebhook | RotatedWebhookSecret };

/** The endpoint whose deliveries show below the list, and how many times the page asked them again. */
interface Shown {
  readonly id: number;
  readonly round: number;
}

/** The row actions' callbacks. */
interface Actions {
  readonly onOpen: (open: Open) => void;
  readonly onSetActive: (webhook: Webhook, active: boolean) => void;
  readonly onTest: (webhook: Webhook) => void;
  readonly onDeliveries: (webhook: Webhook) => void;
}

/**
 * The webhooks page of `orgId`. Its tab shows only to owners and admins; a member of another role
 * who opens it anyway gets no "Add an endpoint", and the service's refusal of the list says who may.
 */
export function WebhooksPage({ orgId, org }: { orgId: number; org: OrgMembership | undefined }) {
  const api = useApi();
  const [loaded, reload] = useLoad(() => data(api.GET('/api/org-api-keys/list-webhooks', ofOrg(orgId))), [orgId]);
  const [open, setOpen] = useState<Open>();
  const [shown, setShown] = useState<Shown>();
  const [message, setMessage] = useState<{ kind: 'error' | 'success'; text: string }>();
  const done = (text: string) => {
    setMessage({ kind: 'success', text });
    setOpen(undefined);
    reload();
  };
  /** Make a call, then say it is done; a refusal shows the service's message. @returns whether it was done */
  const act = async (call: () => Promise<unknown>, text: string): Promise<boolean> => {
    try {
      await call();
      done(text);
      return true;
    } catch (error) {
      setMessage({ kind: 'error', text: failure(error).message });
      return false;
    }
  };
  const actions: Actions = {
    onOpen: setOpen,
    onSetActive: (webhook, active) =>
      void act(
        () => api.PATCH('/api/org-api-keys/update-webhook', { body: { id: webhook.id, org_id: orgId, is_active: active } }),
        `Endpoint #${webhook.id} ${active ? 'resumed' : 'paused'}.`,
      ),
    // The test is a new delivery: its endpoint's deliveries open (or load again) on the newest page.
    onTest: (webhook) =>
      void act(
        () => api.POST('/api/org-api-keys/test-webhook', { body: { id: webhook.id, org_id: orgId } }),
        `A webhook.test event is on its way to endpoint #${webhook.id}.`,
      ).then((sent) => sent && setShown((s) => ({ id: webhook.id, round: (s?.round ?? 0) + 1 }))),
    onDeliveries: (webhook) => setShown((s) => ({ id: webhook.id, round: (s?.round ?? 0) + 1 })),
  };
  return (
    <>
      <PageHeading>Webhooks</PageHeading>
      <p>
        Endpoints of this organization receive its events as signed HTTP requests (Standard Webhooks): verify them with the endpoint’s
        secret.
      </p>
      {may(org, 'webhooks') && (
        <p>
          <button type="button" class="primary" onClick={() => setOpen({ kind: 'create' })}>
            Add an endpoint
          </button>
        </p>
      )}
      {message && <Notice kind={message.kind}>{message.text}</Notice>}
      <Loading loaded={loaded}>
        {(webhooks) => {
          const deliveriesOf = shown && webhooks.find((w) => w.id === shown.id);
          return (
            <>
              <WebhooksTable webhooks={webhooks} actions={actions} />
              {deliveriesOf && (
                // A new round (a test sent, "Deliveries" pressed again) starts over: the newest page, loaded again.
                <WebhookDeliveries
                  key={`${shown.id}:${shown.round}`}
                  orgId={orgId}
                  webhook={deliveriesOf}
                  onClose={() => setShown(undefined)}
                />
              )}
            </>
          );
        }}
      </Loading>
      {open && <WebhookDialogs orgId={orgId} open={open} setOpen={setOpen} done={done} reload={reload} />}
    </>
  );
}

interface DialogsProps {
  readonly orgId: number;
  readonly open: Open;
  readonly setOpen: (open: Open | undefined) => void;
  /** A change is done: say so, close, reload. */
  readonly done: (message: string) => void;
  readonly reload: () => void;
}

/** What is open over the list: a form, a confirmation, or a secret shown once. */
function WebhookDialogs({ orgId, open, setOpen, done, reload }: DialogsProps) {
  const close = () => setOpen(undefined);
  // A new secret replaces the dialog that made it, and the list behind it shows the change.
  const showSecret = (made: CreatedWebhook | RotatedWebhookSecret) => {
    setOpen({ kind: 'secret', made });
    reload();
  };
  switch (open.kind) {
    case 'create':
      return <WebhookForm orgId={orgId} onClose={close} onSaved={(made) => showSecret(made as CreatedWebhook)} />;
    case 'edit':
      return <WebhookForm orgId={orgId} existing={open.webhook} onClose={close} onSaved={(w) => done(`Endpoint #${w.id} saved.`)} />;
    case 'rotate':
      return <RotateWebhookDialog orgId={orgId} webhook={open.webhook} onClose={close} onRotated={showSecret} />;
    case 'delete':
      return <DeleteWebhookDialog orgId={orgId} webhook={open.webhook} onClose={close} onDeleted={done} />;
    case 'secret':
      return <WebhookSecret made={open.made} onClose={close} />;
  }
}

/** The table's columns, in order (a narrow screen's cards label each value with its column). */
const COLUMNS = ['URL', 'Id', 'Events', 'Status', 'Created', 'Actions'] as const;
type Column = (typeof COLUMNS)[number];

function Cell({ column, class: className, children }: { column: Column; class?: string; children: ComponentChildren }) {
  return (
    <td class={className} data-label={column}>
      {children}
    </td>
  );
}

/** The endpoints: a table that fits the page at desktop widths, cards on a narrow screen (views.css). */
function WebhooksTable({ webhooks, actions }: { webhooks: readonly Webhook[]; actions: Actions }) {
  if (webhooks.length === 0) return <p>No endpoints yet.</p>;
  return (
    <TableRegion label="Webhook endpoints" class="fits cards" heads={COLUMNS}>
      {webhooks.map((webhook) => (
        <tr key={webhook.id} data-webhook-id={webhook.id}>
          <th scope="row">
            {webhook.url}
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
            {webhook.is_active ? 'Active' : 'Paused'}
          </Cell>
          <Cell column="Created">{when(webhook.created_at)}</Cell>
          <Cell column="Actions" class="actions">
            <WebhookActions webhook={webhook} actions={actions} />
          </Cell>
        </tr>
      ))}
    </TableRegion>
  );
}

/** A row's buttons; each names its endpoint for screen readers ("Pause endpoint #3"). */
function WebhookActions({ webhook, actions }: { webhook: Webhook; actions: Actions }) {
  const label = (verb: string) => `${verb} endpoint #${webhook.id}`;
  return (
    <div class="row-actions">
      <button type="button" aria-label={label('Deliveries of')} onClick={() => actions.onDeliveries(webhook)}>
        Deliveries
      </button>
      {/* A paused endpoint is sent nothing, a test neither (the service answers 409): resume it first. */}
      {webhook.is_active && (
        <button type="button" aria-label={label('Send test event to')} onClick={() => actions.onTest(webhook)}>
          Send test event
        </button>
      )}
      <button type="button" aria-label={label('Edit')} onClick={() => actions.onOpen({ kind: 'edit', webhook })}>
        Edit
      </button>
      <button
        type="button"
        aria-label={label(webhook.is_active ? 'Pause' : 'Resume')}
        onClick={() => actions.onSetActive(webhook, !webhook.is_active)}
      >
        {webhook.is_active ? 'Pause' : 'Resume'}
      </button>
      <button type="button" aria-label={label('Rotate secret of')} onClick={() => actions.onOpen({ kind: 'rotate', webhook })}>
        Rotate secret
      </button>
      <button type="button" class="danger" aria-label={label('Delete')} onClick={() => actions.onOpen({ kind: 'delete', webhook })}>
        Delete
      </button>
    </div>
  );
}
