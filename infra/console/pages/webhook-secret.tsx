/** An endpoint's signing secret after a registration or a rotation: shown once, with a copy button (as a new key's raw key). */
import { useState } from 'preact/hooks';
import type { CreatedWebhook, RotatedWebhookSecret } from '../api';
import { Dialog } from '../parts/dialog';
import { when } from '../parts/format';
import { Notice } from '../parts/page';

/** Props of {@link WebhookSecret}. */
export interface WebhookSecretProps {
  /** A rotated secret (with `previous_secret_expires_at`): also say until when the old one signs. */
  readonly made: CreatedWebhook | RotatedWebhookSecret;
  readonly onClose: () => void;
}

/** The one time the secret can be seen. */
export function WebhookSecret({ made, onClose }: WebhookSecretProps) {
  const [copied, setCopied] = useState<string>();
  // Escape would lose the secret for good: only "I have stored it" closes, and Escape says so.
  const [escaped, setEscaped] = useState(false);
  const rotated = 'previous_secret_expires_at' in made;
  const copy = async () => {
    try {
      await navigator.clipboard.writeText(made.secret);
      setCopied('Copied to the clipboard.');
    } catch {
      setCopied('The browser refused the clipboard: select the secret and copy it.');
    }
  };
  return (
    <Dialog title={rotated ? 'Secret rotated' : 'Endpoint added'} onClose={onClose} onEscape={() => setEscaped(true)}>
      <Notice kind="info">
        Store this signing secret now, in your receiving server’s configuration: it is shown only once and cannot be retrieved again.
      </Notice>
      <label for="webhook-secret">Signing secret of endpoint #{made.id}</label>
      <input id="webhook-secret" class="secret" readOnly value={made.secret} onFocus={(e) => e.currentTarget.select()} />
      {rotated && (
        <p>
          The previous secret keeps signing too for 24 hours, until {when(made.previous_secret_expires_at)}: every delivery carries both
          signatures meanwhile, so deploy the new secret, then let the old one go.
        </p>
      )}
      <div class="buttons">
        <button type="button" class="primary" onClick={() => void copy()}>
          Copy secret
        </button>
        <button type="button" onClick={onClose}>
          I have stored it
        </button>
      </div>
      {copied && <Notice kind="success">{copied}</Notice>}
      {escaped && <Notice kind="error">The secret cannot be shown again: copy it first, then choose “I have stored it” to close.</Notice>}
    </Dialog>
  );
}
