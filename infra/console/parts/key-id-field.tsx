/**
 * The key filter of the usage and audit pages. For a member who may list keys, a picker of the
 * org's keys by name and prefix, with "Another key id…" for an id the list no longer holds (a
 * deleted key's records); otherwise a free-text id field. Either way the value is the id (blank:
 * every key).
 */
import { useState } from 'preact/hooks';
import type { KnownKeys } from './known-keys';

/** The picker's value for "type an id". */
const OTHER = 'other';

/** Props of {@link KeyIdField}. */
export interface KeyIdFieldProps {
  readonly id: string;
  /** The free-text field's label (no key list). */
  readonly label: string;
  readonly value: string;
  readonly onChange: (value: string) => void;
  readonly known: KnownKeys;
}

/** The key filter: a picker of the known keys, or an id field when there are none. */
export function KeyIdField({ id, label, value, onChange, known }: KeyIdFieldProps) {
  const [typing, setTyping] = useState(false);
  if (known.keys.length === 0) return <IdInput id={id} label={label} value={value} onChange={onChange} />;
  const listed = value === '' || known.get(Number(value)) !== undefined;
  const other = typing || !listed;
  const pick = (picked: string) => {
    setTyping(picked === OTHER);
    onChange(picked === OTHER ? '' : picked);
  };
  return (
    <>
      <div class="field">
        <label for={id}>Key</label>
        <select id={id} value={other ? OTHER : value} onChange={(e) => pick(e.currentTarget.value)}>
          <option value="">Every key</option>
          {known.keys.map((k) => (
            <option key={k.id} value={String(k.id)}>
              {known.label(k.id)}
            </option>
          ))}
          <option value={OTHER}>Another key id…</option>
        </select>
      </div>
      {other && <IdInput id={`${id}-other`} label="Key id" value={value} onChange={onChange} />}
    </>
  );
}

/** A key id typed in: digits only. */
function IdInput({ id, label, value, onChange }: Omit<KeyIdFieldProps, 'known'>) {
  return (
    <div class="field">
      <label for={id}>{label}</label>
      <input id={id} inputMode="numeric" pattern="[0-9]*" value={value} onInput={(e) => onChange(e.currentTarget.value)} />
    </div>
  );
}
