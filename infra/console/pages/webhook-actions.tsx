/** The two endpoint actions that ask first: rotate the secret (the old one signs 24 h more) and delete. */
import { useState } from 'preact/hooks';
import { data, ofOrg, type RotatedWebhookSecret, type Webhook } from '../api';
import { useApi } from '../parts/api-context';
import { Dialog, DialogButtons } from '../parts/dialog';
import { failure } from '../parts/load';
import { Notice } from '../parts/page';

/** Props of the dialogs on one endpoint. */
interface WebhookDialogProps {
  readonly orgId: number;
  readonly webhook: Webhook;
  readonly onClose: () => void;
}

/** Rotate: a new secret now; the previous one signs beside it for 24 hours. */
export function RotateWebhookDialog({
  orgId,
  webhook,
  onClose,
  onRotated,
}: WebhookDialogProps & { onRotated: (r: RotatedWebhookSecret) => void }) {
  const api = useApi();
  const [problem, setProblem] = useState<string>();
  const [busy, setBusy] = useState(false);
  const rotate = async () => {
    setBusy(true);
    try {
      onRotated(await data(api.POST('/api/org-api-keys/rotate-webhook-secret', { body: { id: webhook.id, org_id: orgId } })));
    } catch (error) {
      setProblem(failure(error).message);
    } finally {
      setBusy(false);
    }
  };
  return (
    <Dialog title={`Rotate the secret of endpoint #${webhook.id}?`} onClose={onClose}>
      <p>
        A new signing secret is made and shown once. For the next 24 hours every delivery to {webhook.url} is signed with both, so your
        server keeps verifying while you deploy the new one; rotating again within them drops the oldest.
      </p>
      {problem && <Notice kind="error">{problem}</Notice>}
      <div class="buttons">
        <button type="button" class="primary" onClick={() => void rotate()} disabled={busy}>
          Rotate the secret
        </button>
        <button type="button" onClick={onClose}>
          Cancel
        </button>
      </div>
    </Dialog>
  );
}

/** Delete, after the admin confirms. */
export function DeleteWebhookDialog({ orgId, webhook, onClose, onDeleted }: WebhookDialogProps & { onDeleted: (message: string) => void }) {
  const api = useApi();
  const [problem, setProblem] = useState<string>();
  const remove = async () => {
    try {
      await api.DELETE('/api/org-api-keys/delete-webhook', ofOrg(orgId, { id: String(webhook.id) }));
      onDeleted(`Endpoint #${webhook.id} deleted.`);
    } catch (error) {
      setProblem(failure(error).message);
    }
  };
  return (
    <Dialog title={`Delete endpoint #${webhook.id}?`} onClose={onClose}>
      <p>
        {webhook.url} receives nothing more, and its deliveries can no longer be listed or retried. This cannot be undone: to receive events
        again, add an endpoint (with a new secret).
      </p>
      {problem && <Notice kind="error">{problem}</Notice>}
      <DialogButtons label="Delete the endpoint" onConfirm={() => void remove()} onCancel={onClose} />
    </Dialog>
  );
}
