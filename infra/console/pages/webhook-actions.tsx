/**
 * What can be done to an endpoint, one set for the endpoints list's row menus and the endpoint's
 * own page: send a test event, recover missed events (webhook-recover.tsx), edit, pause / resume,
 * rotate the secret (after a confirmation that says the old one signs 24 hours more) and delete
 * (after a confirmation). A paused endpoint is sent nothing, so it offers no test (the service
 * would answer 409: resume it first); resuming one offers to recover what it missed while paused.
 */
import type { JSX } from 'preact';
import { data, ofOrg, type CreatedWebhook, type RotatedWebhookSecret, type Webhook } from '../api';
import { useApi } from '../parts/api-context';
import { ConfirmDialog } from '../parts/confirm';
import { useItemActions, type ItemActions, type ItemActionsProps } from '../parts/item-actions';
import type { MenuItem } from '../parts/row-menu';
import { WebhookForm } from './webhook-form';
import { defaultSince, RecoverDialog } from './webhook-recover';
import { WebhookSecret } from './webhook-secret';

/** What is open over the page. */
type Open =
  | { readonly kind: 'create' }
  | { readonly kind: 'edit' | 'rotate' | 'delete'; readonly webhook: Webhook }
  | { readonly kind: 'recover'; readonly webhook: Webhook; readonly since: string; readonly intro?: string }
  | { readonly kind: 'secret'; readonly made: CreatedWebhook | RotatedWebhookSecret };

/** Props of {@link useWebhookActions}. */
export interface WebhookActionsProps extends ItemActionsProps {
  readonly orgId: number;
  /** After a test event was sent to `webhook` (its page follows the new delivery; a list moves to that page). */
  readonly tested?: (webhook: Webhook) => void;
  /** After a recovery queued deliveries to `webhook` (its page loads them again). */
  readonly sent?: (webhook: Webhook) => void;
}

/** What a page says once a test event is sent to `webhook`. */
export const testSent = (webhook: Webhook) => `A webhook.test event is on its way to endpoint #${webhook.id}.`;

/** The endpoint actions on `orgId`. */
export function useWebhookActions({ orgId, changed, tested, sent, deleted }: WebhookActionsProps): ItemActions<Webhook> {
  const api = useApi();
  const { open, setOpen, close, outcome, done, show, act, removal } = useItemActions<Open>({ changed, deleted });
  // A new secret replaces the dialog that made it, and the page behind it shows the change.
  const showSecret = (made: CreatedWebhook | RotatedWebhookSecret) => show({ kind: 'secret', made });
  // A resumed endpoint may have missed events while it was paused: their recovery is offered, from
  // the pause, when a dry run finds any (an offer of nothing would only be one more dialog to close).
  const offerRecovery = async (webhook: Webhook, since: string) => {
    const body = { org_id: orgId, id: webhook.id, since, dry_run: true };
    const missed = await data(api.POST('/api/org-api-keys/recover-webhook', { body })).catch(() => undefined);
    if (!missed?.count) return;
    const intro = `Endpoint #${webhook.id} is resumed. Its events since it was paused were kept: send them now?`;
    setOpen({ kind: 'recover', webhook: { ...webhook, is_active: true, paused_at: null }, since, intro });
  };
  const setActive = (webhook: Webhook, active: boolean) =>
    act(
      () => api.PATCH('/api/org-api-keys/update-webhook', { body: { id: webhook.id, org_id: orgId, is_active: active } }),
      `Endpoint #${webhook.id} ${active ? 'resumed' : 'paused'}.`,
      () => active && webhook.paused_at && void offerRecovery(webhook, webhook.paused_at),
    );
  const items = (webhook: Webhook): MenuItem[] => [
    ...(webhook.is_active
      ? [
          {
            label: 'Send test event',
            run: () =>
              act(
                () => api.POST('/api/org-api-keys/test-webhook', { body: { id: webhook.id, org_id: orgId } }),
                testSent(webhook),
                () => tested?.(webhook),
              ),
          },
        ]
      : []),
    { label: 'Recover missed events…', run: () => setOpen({ kind: 'recover', webhook, since: defaultSince(webhook) }) },
    { label: 'Edit', run: () => setOpen({ kind: 'edit', webhook }) },
    { label: webhook.is_active ? 'Pause' : 'Resume', run: () => setActive(webhook, !webhook.is_active) },
    { label: 'Rotate secret', run: () => setOpen({ kind: 'rotate', webhook }) },
    { label: 'Delete', danger: true, run: () => setOpen({ kind: 'delete', webhook }) },
  ];
  let dialog: JSX.Element | null = null;
  switch (open?.kind) {
    case 'create':
      dialog = <WebhookForm orgId={orgId} onClose={close} onSaved={(made) => showSecret(made as CreatedWebhook)} />;
      break;
    case 'edit':
      dialog = <WebhookForm orgId={orgId} existing={open.webhook} onClose={close} onSaved={(w) => done(`Endpoint #${w.id} saved.`)} />;
      break;
    case 'rotate': {
      const { webhook } = open;
      const rotate = async () =>
        showSecret(await data(api.POST('/api/org-api-keys/rotate-webhook-secret', { body: { id: webhook.id, org_id: orgId } })));
      dialog = (
        <ConfirmDialog
          title={`Rotate the secret of endpoint #${webhook.id}?`}
          confirm="Rotate the secret"
          onConfirm={rotate}
          onClose={close}
        >
          <p>
            A new signing secret is made and shown once. For the next 24 hours every delivery to {webhook.url} is signed with both, so your
            server keeps verifying while you deploy the new one; after them, a server that still checks the old secret only rejects every
            delivery. Rotating again within them drops the oldest.
          </p>
        </ConfirmDialog>
      );
      break;
    }
    case 'delete': {
      const { webhook } = open;
      const remove = removal(
        () => api.DELETE('/api/org-api-keys/delete-webhook', ofOrg(orgId, { id: String(webhook.id) })),
        `Endpoint #${webhook.id} deleted.`,
      );
      dialog = (
        <ConfirmDialog title={`Delete endpoint #${webhook.id}?`} confirm="Delete the endpoint" danger onConfirm={remove} onClose={close}>
          <p>
            {webhook.url} receives nothing more, and its deliveries can no longer be listed or retried. This cannot be undone: to receive
            events again, add an endpoint (with a new secret).
          </p>
        </ConfirmDialog>
      );
      break;
    }
    case 'recover':
      dialog = (
        <RecoverDialog
          orgId={orgId}
          webhook={open.webhook}
          since={open.since}
          {...(open.intro ? { intro: open.intro } : {})}
          onClose={close}
          onRecovered={() => {
            changed();
            sent?.(open.webhook);
          }}
        />
      );
      break;
    case 'secret':
      dialog = <WebhookSecret made={open.made} onClose={close} />;
      break;
  }
  return { items, create: () => setOpen({ kind: 'create' }), dialog, outcome };
}
