/**
 * The one confirmation dialog of the console: what the action does and what follows from it (the
 * consequence, in `children`), the confirming button, and Cancel, which does nothing. Revoke,
 * delete and rotate-the-secret all ask through it; a refusal shows in the dialog, which stays.
 */
import type { ComponentChildren } from 'preact';
import { useState } from 'preact/hooks';
import { Dialog } from './dialog';
import { failure } from './load';
import { Notice } from './page';

/** Props of {@link ConfirmDialog}. */
export interface ConfirmDialogProps {
  readonly title: string;
  /** The confirming button's text ("Revoke the key"). */
  readonly confirm: string;
  /** A destructive action's button is red; the others are the primary colour. */
  readonly danger?: boolean;
  /** The action; the dialog shows its refusal (a rejection) and stays open. */
  readonly onConfirm: () => Promise<void>;
  readonly onClose: () => void;
  readonly children: ComponentChildren;
}

/** Ask before acting. */
export function ConfirmDialog({ title, confirm, danger, onConfirm, onClose, children }: ConfirmDialogProps) {
  const [problem, setProblem] = useState<string>();
  const [busy, setBusy] = useState(false);
  const run = async () => {
    setBusy(true);
    try {
      await onConfirm();
    } catch (error) {
      setProblem(failure(error).message);
    } finally {
      setBusy(false);
    }
  };
  return (
    <Dialog title={title} onClose={onClose}>
      {children}
      {problem && <Notice kind="error">{problem}</Notice>}
      <div class="buttons dialog-actions">
        <button type="button" class={danger ? 'danger' : 'primary'} onClick={() => void run()} disabled={busy}>
          {confirm}
        </button>
        <button type="button" onClick={onClose}>
          Cancel
        </button>
      </div>
    </Dialog>
  );
}
