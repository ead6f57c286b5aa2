/**
 * A secret the service answers once (a new or rotated API key, a webhook endpoint's signing secret):
 * shown in a dialog with a copy button, and closed only by "I have stored it". Escape would lose it
 * for good, so Escape only says so.
 */
import type { ComponentChildren } from 'preact';
import { useState } from 'preact/hooks';
import { Dialog } from './dialog';
import { Notice } from './page';

/** Props of {@link ShownOnce}. */
export interface ShownOnceProps {
  readonly title: string;
  /** What it is, in the messages: `key`, `secret`. */
  readonly noun: string;
  /** Where to keep it, said first. */
  readonly advice: string;
  readonly label: string;
  readonly inputId: string;
  readonly value: string;
  /** What else to know (e.g. how long the previous one still works). */
  readonly children?: ComponentChildren;
  readonly onClose: () => void;
}

/** The one time the secret can be seen. */
export function ShownOnce({ title, noun, advice, label, inputId, value, children, onClose }: ShownOnceProps) {
  const [copied, setCopied] = useState<string>();
  const [escaped, setEscaped] = useState(false);
  const copy = async () => {
    try {
      await navigator.clipboard.writeText(value);
      setCopied('Copied to the clipboard.');
    } catch {
      setCopied(`The browser refused the clipboard: select the ${noun} and copy it.`);
    }
  };
  return (
    <Dialog title={title} onClose={onClose} onEscape={() => setEscaped(true)}>
      <Notice kind="info">{advice}</Notice>
      <label for={inputId}>{label}</label>
      <input id={inputId} class="secret" readOnly value={value} onFocus={(e) => e.currentTarget.select()} />
      {children}
      <div class="buttons">
        <button type="button" class="primary" onClick={() => void copy()}>
          Copy {noun}
        </button>
        <button type="button" onClick={onClose}>
          I have stored it
        </button>
      </div>
      {copied && <Notice kind="success">{copied}</Notice>}
      {escaped && <Notice kind="error">The {noun} cannot be shown again: copy it first, then choose “I have stored it” to close.</Notice>}
    </Dialog>
  );
}
