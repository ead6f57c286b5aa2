/** The raw key of a created or rotated key: shown once, with a copy button and a warning. */
import { useState } from 'preact/hooks';
import type { CreatedKey } from '../api';
import { Dialog } from '../parts/dialog';
import { when } from '../parts/format';
import { Notice } from '../parts/page';

/** Props of {@link KeySecret}. */
export interface KeySecretProps {
  /** A rotated key (with `previous`): also say until when the old key works. */
  readonly created: CreatedKey;
  readonly onClose: () => void;
}

/** The one time the raw key can be seen. */
export function KeySecret({ created, onClose }: KeySecretProps) {
  const [copied, setCopied] = useState<string>();
  // Escape would lose the key for good: only "I have stored it" closes, and Escape says so.
  const [escaped, setEscaped] = useState(false);
  const copy = async () => {
    try {
      await navigator.clipboard.writeText(created.key);
      setCopied('Copied to the clipboard.');
    } catch {
      setCopied('The browser refused the clipboard: select the key and copy it.');
    }
  };
  return (
    <Dialog title={'previous' in created ? 'Key rotated' : 'Key created'} onClose={onClose} onEscape={() => setEscaped(true)}>
      <Notice kind="info">
        Copy this key now: it is shown only once and cannot be retrieved again. Store it on your server only, never in a web page or an app.
      </Notice>
      <label for="raw-key">API key {created.name}</label>
      <input id="raw-key" class="secret" readOnly value={created.key} onFocus={(e) => e.currentTarget.select()} />
      {'previous' in created && (
        <p>
          The previous key {created.previous.key_prefix} keeps working until {when(created.previous.expires_at)}.
        </p>
      )}
      <div class="buttons">
        <button type="button" class="primary" onClick={() => void copy()}>
          Copy key
        </button>
        <button type="button" onClick={onClose}>
          I have stored it
        </button>
      </div>
      {copied && <Notice kind="success">{copied}</Notice>}
      {escaped && <Notice kind="error">The key cannot be shown again: copy it first, then choose “I have stored it” to close.</Notice>}
    </Dialog>
  );
}
