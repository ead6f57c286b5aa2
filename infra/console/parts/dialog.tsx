/**
 * A modal dialog on the native `<dialog>` element: the browser traps the focus inside, Escape closes
 * it, and the focus goes back to what opened it when it closes.
 */
import type { ComponentChildren } from 'preact';
import { useEffect, useRef } from 'preact/hooks';

/** Props of {@link Dialog}. */
export interface DialogProps {
  readonly title: string;
  readonly onClose: () => void;
  readonly children: ComponentChildren;
}

/** A modal dialog, open while it is rendered. */
export function Dialog({ title, onClose, children }: DialogProps) {
  const dialog = useRef<HTMLDialogElement>(null);
  useEffect(() => {
    const opener = document.activeElement as HTMLElement | null;
    const element = dialog.current!;
    element.showModal();
    return () => {
      if (element.open) element.close();
      opener?.focus();
    };
  }, []);
  const id = `dialog-${title.replace(/\W+/g, '-').toLowerCase()}`;
  return (
    <dialog
      ref={dialog}
      aria-labelledby={id}
      onCancel={(event) => {
        event.preventDefault();
        onClose();
      }}
    >
      <h2 id={id}>{title}</h2>
      {children}
    </dialog>
  );
}

/** Props of {@link DialogButtons}. */
export interface DialogButtonsProps {
  /** The confirming button's text. */
  readonly label: string;
  readonly onCancel: () => void;
  /** Without it the confirming button submits the dialog's form (primary); with it, it runs this (danger). */
  readonly onConfirm?: () => void;
  readonly disabled?: boolean;
}

/** A dialog's two buttons: the confirming one, then Cancel. */
export function DialogButtons({ label, onCancel, onConfirm, disabled }: DialogButtonsProps) {
  return (
    <div class="buttons">
      {onConfirm ? (
        <button type="button" class="danger" onClick={onConfirm} disabled={disabled}>
          {label}
        </button>
      ) : (
        <button type="submit" class="primary" disabled={disabled}>
          {label}
        </button>
      )}
      <button type="button" onClick={onCancel}>
        Cancel
      </button>
    </div>
  );
}
