/**
 * A modal dialog on the native `<dialog>` element: the browser traps the focus inside, Escape closes
 * it (unless the dialog must be closed by its own button), and the focus goes back to what opened it
 * when it closes.
 */
import type { ComponentChildren } from 'preact';
import { useEffect, useRef } from 'preact/hooks';

/** Props of {@link Dialog}. */
export interface DialogProps {
  readonly title: string;
  readonly onClose: () => void;
  /**
   * Escape does not close it, and this runs instead (the raw key's dialog: what it shows is gone once
   * it closes, so only its explicit button closes it, and this says so). Absent: Escape closes.
   */
  readonly onEscape?: () => void;
  readonly children: ComponentChildren;
}

/** A modal dialog, open while it is rendered. */
export function Dialog({ title, onClose, onEscape, children }: DialogProps) {
  const dialog = useRef<HTMLDialogElement>(null);
  const unmounting = useRef(false);
  useEffect(() => {
    const opener = document.activeElement as HTMLElement | null;
    const element = dialog.current!;
    element.showModal();
    return () => {
      unmounting.current = true;
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
        (onEscape ?? onClose)();
      }}
      // A browser may close a dialog without a cancel it lets us prevent (Chromium's close-watcher
      // rule, on a repeated Escape): one that must stay opens again, any other closes as by its button.
      onClose={() => {
        if (unmounting.current) return;
        if (onEscape) {
          dialog.current?.showModal();
          onEscape();
        } else onClose();
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
  readonly disabled?: boolean;
}

/** A form dialog's two buttons: the submitting one, then Cancel (parts/confirm.tsx asks before an action); they stay in view at the dialog's foot while its body scrolls (views.css). */
export function DialogButtons({ label, onCancel, disabled }: DialogButtonsProps) {
  return (
    <div class="buttons dialog-actions">
      <button type="submit" class="primary" disabled={disabled}>
        {label}
      </button>
      <button type="button" onClick={onCancel}>
        Cancel
      </button>
    </div>
  );
}
