/**
 * What can be done to a key, one set for the keys list's row menus and the key's own page: edit,
 * revoke (after a confirmation that says the partner's next call is refused), reactivate, rotate
 * (with its grace period, the consequence said) and delete (after a confirmation). Only what the
 * service allows is offered (docs/decisions.md#key-rotation): a rotated key can't be reactivated,
 * a revoked one can't be rotated, and a key is rotated once.
 */
import type { JSX } from 'preact';
import { useState } from 'preact/hooks';
import { data, ofOrg, type ApiKey, type CreatedKey } from '../api';
import { useApi } from '../parts/api-context';
import { ConfirmDialog } from '../parts/confirm';
import { Dialog, DialogButtons } from '../parts/dialog';
import { keyName } from '../parts/format';
import { useItemActions, type ItemActions, type ItemActionsProps } from '../parts/item-actions';
import { failure } from '../parts/load';
import { Notice } from '../parts/page';
import type { MenuItem } from '../parts/row-menu';
import { KeyForm } from './key-form';
import { KeySecret } from './key-secret';

/** What is open over the page. */
type Open =
  | { readonly kind: 'create' }
  | { readonly kind: 'edit' | 'revoke' | 'rotate' | 'delete'; readonly key: ApiKey }
  | { readonly kind: 'secret'; readonly key: CreatedKey };

/** The key actions on `orgId`. */
export function useKeyActions({ orgId, changed, deleted }: ItemActionsProps & { readonly orgId: number }): ItemActions<ApiKey> {
  const api = useApi();
  const { open, setOpen, close, outcome, done, show, act, removal } = useItemActions<Open>({ changed, deleted });
  const setActive = (key: ApiKey, active: boolean) =>
    api.PATCH('/api/org-api-keys', { body: { id: key.id, org_id: orgId, is_active: active } });
  // Confirmed first; a refusal rejects, and the confirmation shows it.
  const revoke = async (key: ApiKey) => {
    await setActive(key, false);
    done(`${keyName(key)} revoked.`);
  };
  // A new raw key replaces the dialog that made it, and the page behind it shows the new key.
  const showSecret = (key: CreatedKey) => show({ kind: 'secret', key });
  const items = (key: ApiKey): MenuItem[] => [
    { label: 'Edit', run: () => setOpen({ kind: 'edit', key }) },
    ...(key.is_active ? [{ label: 'Revoke', run: () => setOpen({ kind: 'revoke', key }) }] : []),
    // Reactivating gives back what revoking took, at once: nothing to confirm.
    ...(!key.is_active && key.rotated_to === null
      ? [
          {
            label: 'Reactivate',
            run: () => act(() => setActive(key, true), `${keyName(key)} reactivated.`),
          },
        ]
      : []),
    ...(key.is_active && key.rotated_to === null ? [{ label: 'Rotate', run: () => setOpen({ kind: 'rotate', key }) }] : []),
    { label: 'Delete', danger: true, run: () => setOpen({ kind: 'delete', key }) },
  ];
  let dialog: JSX.Element | null = null;
  switch (open?.kind) {
    case 'create':
      dialog = <KeyForm orgId={orgId} onClose={close} onSaved={(key) => showSecret(key as CreatedKey)} />;
      break;
    case 'edit':
      dialog = <KeyForm orgId={orgId} existing={open.key} onClose={close} onSaved={(key) => done(`${key.name} saved.`)} />;
      break;
    case 'revoke':
      dialog = <RevokeKeyDialog apiKey={open.key} onClose={close} onRevoke={() => revoke(open.key)} />;
      break;
    case 'rotate':
      dialog = <RotateKeyDialog orgId={orgId} apiKey={open.key} onClose={close} onRotated={showSecret} />;
      break;
    case 'delete': {
      const key = open.key;
      const remove = removal(() => api.DELETE('/api/org-api-keys', ofOrg(orgId, { id: String(key.id) })), `${keyName(key)} deleted.`);
      dialog = (
        <ConfirmDialog title={`Delete ${key.name}?`} confirm="Delete the key" danger onConfirm={remove} onClose={close}>
          <p>
            The key {key.key_prefix} stops working at once and cannot be brought back. Sessions it already minted stay valid until they are
            used or expire.
          </p>
        </ConfirmDialog>
      );
      break;
    }
    case 'secret':
      dialog = <KeySecret created={open.key} onClose={close} />;
      break;
  }
  return { items, create: () => setOpen({ kind: 'create' }), dialog, outcome };
}

/** Revoke, after the admin confirms: the consequence (the partner's next call is refused) said first. */
function RevokeKeyDialog({ apiKey: key, onClose, onRevoke }: { apiKey: ApiKey; onClose: () => void; onRevoke: () => Promise<void> }) {
  return (
    <ConfirmDialog title={`Revoke ${key.name}?`} confirm="Revoke the key" danger onConfirm={onRevoke} onClose={onClose}>
      <p>
        The key {key.key_prefix} stops working at once: the next call made with it is refused (401), so whatever uses it stops minting
        sessions. Sessions it already minted stay valid until they are used or expire.
      </p>
      <p>
        {key.rotated_to === null
          ? 'You can reactivate it later.'
          : `It was rotated (to #${key.rotated_to}): a rotated key cannot be reactivated, its grace period ends now.`}
      </p>
    </ConfirmDialog>
  );
}

/** Props of {@link RotateKeyDialog}. */
interface RotateKeyDialogProps {
  readonly orgId: number;
  readonly apiKey: ApiKey;
  readonly onClose: () => void;
  readonly onRotated: (key: CreatedKey) => void;
}

/** Rotate: a new key with the same settings; the old one works for the grace period, then stops. */
function RotateKeyDialog({ orgId, apiKey, onClose, onRotated }: RotateKeyDialogProps) {
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
    <Dialog title={`Rotate ${apiKey.name}?`} onClose={onClose}>
      <form class="stack" onSubmit={submit}>
        <p>
          A new key with the same settings replaces {apiKey.key_prefix}; it is shown once. The old key keeps working for the grace period,
          then every call with it is refused (401): deploy the new key on your servers before it ends. A rotated key cannot be reactivated
          or rotated again.
        </p>
        <div class="field">
          <label for="grace">Grace period (minutes, 0 to 10,080; 0 revokes the old key at once)</label>
          <input id="grace" type="number" min={0} max={10080} required value={minutes} onInput={(e) => setMinutes(e.currentTarget.value)} />
        </div>
        {problem && <Notice kind="error">{problem}</Notice>}
        <DialogButtons label="Rotate the key" onCancel={onClose} />
      </form>
    </Dialog>
  );
}
