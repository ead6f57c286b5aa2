/** The "key id" filter of the usage and audit pages: digits only, blank for every key. */
export function KeyIdField({
  id,
  label,
  value,
  onChange,
}: {
  id: string;
  label: string;
  value: string;
  onChange: (value: string) => void;
}) {
  return (
    <div class="field">
      <label for={id}>{label}</label>
      <input id={id} inputMode="numeric" pattern="[0-9]*" value={value} onInput={(e) => onChange(e.currentTarget.value)} />
    </div>
  );
}
