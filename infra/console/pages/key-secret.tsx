/** The raw key of a created or rotated key: shown once (`ShownOnce`), with a warning. */
import type { CreatedKey } from '../api';
import { when } from '../parts/format';
import { ShownOnce } from '../parts/shown-once';

/** Props of {@link KeySecret}. */
export interface KeySecretProps {
  /** A rotated key (with `previous`): also say until when the old key works. */
  readonly created: CreatedKey;
  readonly onClose: () => void;
}

/** The one time the raw key can be seen. */
export function KeySecret({ created, onClose }: KeySecretProps) {
  return (
    <ShownOnce
      title={'previous' in created ? 'Key rotated' : 'Key created'}
      noun="key"
      advice="Copy this key now: it is shown only once and cannot be retrieved again. Store it on your server only, never in a web page or an app."
      label={`API key ${created.name}`}
      inputId="raw-key"
      value={created.key}
      onClose={onClose}
    >
      {'previous' in created && (
        <p>
          The previous key {created.previous.key_prefix} keeps working until {when(created.previous.expires_at)}.
        </p>
      )}
    </ShownOnce>
  );
}
