/** An endpoint's signing secret after a registration or a rotation: shown once (`ShownOnce`), as a new key's raw key. */
import type { CreatedWebhook, RotatedWebhookSecret } from '../api';
import { when } from '../parts/format';
import { ShownOnce } from '../parts/shown-once';

/** Props of {@link WebhookSecret}. */
export interface WebhookSecretProps {
  /** A rotated secret (with `previous_secret_expires_at`): also say until when the old one signs. */
  readonly made: CreatedWebhook | RotatedWebhookSecret;
  readonly onClose: () => void;
}

/** The one time the secret can be seen. */
export function WebhookSecret({ made, onClose }: WebhookSecretProps) {
  const rotated = 'previous_secret_expires_at' in made;
  return (
    <ShownOnce
      title={rotated ? 'Secret rotated' : 'Endpoint added'}
      noun="secret"
      advice="Store this signing secret now, in your receiving server’s configuration: it is shown only once and cannot be retrieved again."
      label={`Signing secret of endpoint #${made.id}`}
      inputId="webhook-secret"
      value={made.secret}
      onClose={onClose}
    >
      {rotated && (
        <p>
          The previous secret keeps signing too for 24 hours, until {when(made.previous_secret_expires_at)}: every delivery carries both
          signatures meanwhile, so deploy the new secret, then let the old one go.
        </p>
      )}
    </ShownOnce>
  );
}
