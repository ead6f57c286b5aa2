/** The two key actions that ask first: rotate (with its grace period) and delete (with a confirmation). */
import { useState } from 'preact/hooks';
import { data, ofOrg, type ApiKey, type CreatedKey } from '../api';
import { useApi } from '../parts/api-context';
import { Dialog, DialogButtons } from '../parts/dialog';
import { keyName } from '../parts/format';
import { failure } from '../parts/load';
import { Notice } from '../parts/page';

/** Props of the dialogs on one key. */
interface KeyDialogProps {
  readonly orgId: number;
  readonly apiKey: ApiKey;
  readonly onClose: () => void;
}

/** Rotate: a new key with the same settings; the old one works for the grace period. */
export function RotateKeyDialog({ orgId, apiKey, onClose, onRotated }: KeyDialogProps & { onRotated: (key: CreatedKey) => void }) {
  const api = useApi();
  const [minutes, setMinutes] = useState('60');
  const [problem, setProblem] = useState<string>();
  const submit = async (event: Event) => {
    event.preventDefault();
    try {
      const body = { id: apiKey.id, org_id: orgId, grace_period_minutes: Number(minutes) };
      onRotated(await data(api.POST('/api/org-api-keys/rotate-key', { body })));
    } catch (error) {
      setProblem(failure(error).message);
    }
  };
  return (
    <Dialog title={`Rotate ${apiKey.name}`} onClose={onClose}>
      <form class="stack" onSubmit={submit}>
        <p>
          A new key with the same settings replaces {apiKey.key_prefix}. The old key keeps working for the grace period, so your servers can
          switch.
        </p>
        <div class="field">
          <label for="grace">Grace period (minutes, 0 to 10,080; 0 revokes the old key at once)</label>
          <input id="grace" type="number" min={0} max={10080} required value={minutes} onInput={(e) => setMinutes(e.currentTarget.value)} />
        </div>
        {problem && <Notice kind="error">{problem}</Notice>}
        <DialogButtons label="Rotate" onCancel={onClose} />
      </form>
    </Dialog>
  );
}

/** Delete, after the admin confirms. */
export function DeleteKeyDialog({ orgId, apiKey, onClose, onDeleted }: KeyDialogProps & { onDeleted: (message: string) => void }) {
  const api = useApi();
  const [problem, setProblem] = useState<string>();
  const remove = async () => {
    try {
      await api.DELETE('/api/org-api-keys', ofOrg(orgId, { id: String(apiKey.id) }));
      onDeleted(`${keyName(apiKey)} deleted.`);
    } catch (error) {
      setProblem(failure(error).message);
    }
  };
  return (
    <Dialog title={`Delete ${apiKey.name}?`} onClose={onClose}>
      <p>
        The key {apiKey.key_prefix} stops working at once and cannot be brought back. Sessions it already minted stay valid until they are
        used or expire.
      </p>
      {problem && <Notice kind="error">{problem}</Notice>}
      <DialogButtons label="Delete the key" onConfirm={() => void remove()} onCancel={onClose} />
    </Dialog>
  );
}
