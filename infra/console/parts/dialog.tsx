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
