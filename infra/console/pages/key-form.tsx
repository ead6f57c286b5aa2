/**
 * Create a key, or edit every property an update may change. An edit sends only what changed (the
 * service refuses an update that changes nothing); blank allow-lists mean "every one".
 */
import type { JSX } from 'preact';
import { useState } from 'preact/hooks';
import { MCP_SCOPES, toolsOfScope } from '../../../shared/keys/mcp-scopes.js';
import { data, type ApiKey, type CreatedKey } from '../api';
import { useApi } from '../parts/api-context';
import { Dialog, DialogButtons } from '../parts/dialog';
import { instantOf, idsText, parseIds, toLocalInput } from '../parts/format';
import { failure } from '../parts/load';
import { Notice } from '../parts/page';

/** Props of {@link KeyForm}. */
export interface KeyFormProps {
  readonly orgId: number;
  /** The key to edit; absent: create one. */
  readonly existing?: ApiKey;
  readonly onClose: () => void;
  readonly onSaved: (key: ApiKey | CreatedKey) => void;
}

/** The form's fields, as text (what the inputs hold). */
interface Fields {
  name: string;
  description: string;
  games: string;
  streams: string;
  perMinute: string;
  perDay: string;
  expires: string;
  scopes: ApiKey['mcp_scopes'];
}

function initialFields(key: ApiKey | undefined): Fields {
  return {
    name: key?.name ?? '',
    description: key?.description ?? '',
    games: idsText(key?.allowed_game_ids ?? null),
    streams: idsText(key?.allowed_stream_ids ?? null),
    perMinute: String(key?.rate_limit_per_minute ?? 60),
    perDay: String(key?.rate_limit_per_day ?? 10_000),
    expires: toLocalInput(key?.expires_at ?? null),
    scopes: [...(key?.mcp_scopes ?? [])],
  };
}

/** The request body's properties from the fields (throws with a message on a malformed id list). */
function properties(fields: Fields, existing: ApiKey | undefined) {
  return {
    name: fields.name.trim(),
    description: fields.description.trim() === '' ? null : fields.description.trim(),
    allowed_game_ids: parseIds(fields.games),
    allowed_stream_ids: parseIds(fields.streams),
    rate_limit_per_minute: Number(fields.perMinute),
    rate_limit_per_day: Number(fields.perDay),
    expires_at: instantOf(fields.expires, existing?.expires_at ?? null),
    mcp_scopes: fields.scopes,
  };
}

/** Only the properties whose value differs from the key's. */
function changed<T extends object>(next: T, key: ApiKey): Partial<T> {
  const before = (name: string) => JSON.stringify(key[name as keyof ApiKey]);
  return Object.fromEntries(Object.entries(next).filter(([name, value]) => JSON.stringify(value) !== before(name))) as Partial<T>;
}

/** The create / edit dialog. */
export function KeyForm({ orgId, existing, onClose, onSaved }: KeyFormProps) {
  const [fields, setFields] = useState(() => initialFields(existing));
  const { submit, problem, busy } = useSave({ orgId, existing, onClose, onSaved }, fields);
  return (
    <Dialog title={existing ? `Edit ${existing.name}` : 'Create an API key'} onClose={onClose}>
      <form class="stack" onSubmit={submit}>
        <KeyFields fields={fields} setFields={setFields} existing={existing} />
        {problem && <Notice kind="error">{problem}</Notice>}
        <DialogButtons label={existing ? 'Save' : 'Create'} onCancel={onClose} disabled={busy} />
      </form>
    </Dialog>
  );
}

/** Sending the form: a create, or an update of what changed (nothing changed: just close). */
function useSave({ orgId, existing, onClose, onSaved }: KeyFormProps, fields: Fields) {
  const api = useApi();
  const [problem, setProblem] = useState<string>();
  const [busy, setBusy] = useState(false);
  const submit = async (event: Event) => {
    event.preventDefault();
    setBusy(true);
    try {
      const next = properties(fields, existing);
      if (existing) {
        const body = changed(next, existing);
        if (Object.keys(body).length === 0) return onClose();
        onSaved(await data(api.PATCH('/api/org-api-keys', { body: { id: existing.id, org_id: orgId, ...body } })));
      } else {
        onSaved(await data(api.POST('/api/org-api-keys', { body: { org_id: orgId, ...next } })));
      }
    } catch (error) {
      setProblem(failure(error).message);
    } finally {
      setBusy(false);
    }
  };
  return { submit, problem, busy };
}

/**
 * What the limits count: every call the key makes, not only minted sessions (docs/api.md): REST
 * create-session and revoke-session, and each MCP request (connecting is two: initialize and the
 * tool list).
 */
const CALLS_HINT = 'Every call the key makes counts: creating and revoking sessions, and each MCP request (connecting takes two)';

/** Every property a key has, as labelled fields. */
function KeyFields({ fields, setFields, existing }: { fields: Fields; setFields: (fields: Fields) => void; existing?: ApiKey }) {
  const set = (name: keyof Fields) => (event: Event) => setFields({ ...fields, [name]: (event.currentTarget as HTMLInputElement).value });
  const games = 'Comma-separated; blank: every game; none: no game';
  const streams = 'Comma-separated; blank: every stream; none: no stream';
  return (
    <>
      <Field id="key-name" label="Name" value={fields.name} onInput={set('name')} required maxLength={100} />
      <Field id="key-description" label="Description (optional)" value={fields.description} onInput={set('description')} maxLength={500} />
      <Field id="key-games" label="Allowed game ids" hint={games} value={fields.games} onInput={set('games')} />
      <Field id="key-streams" label="Allowed stream ids" hint={streams} value={fields.streams} onInput={set('streams')} />
      <Field
        id="key-per-minute"
        label="Calls per minute"
        hint={CALLS_HINT}
        type="number"
        min={1}
        max={100000}
        value={fields.perMinute}
        onInput={set('perMinute')}
        required
      />
      <Field
        id="key-per-day"
        label="Calls per day"
        type="number"
        min={1}
        max={100000000}
        value={fields.perDay}
        onInput={set('perDay')}
        required
      />
      <ExpiryField existing={existing} value={fields.expires} onInput={set('expires')} />
      <Scopes selected={fields.scopes} onChange={(scopes) => setFields({ ...fields, scopes })} />
    </>
  );
}

interface FieldProps {
  readonly id: string;
  readonly label: string;
  readonly hint?: string;
  readonly value: string;
  readonly onInput: (event: Event) => void;
  readonly type?: 'text' | 'number' | 'datetime-local';
  readonly required?: boolean;
  readonly min?: number;
  readonly max?: number | string;
  readonly maxLength?: number;
}

/** A labelled input, its hint tied to it with `aria-describedby`. */
function Field({ id, label, hint, type = 'text', ...rest }: FieldProps) {
  // One object for the three input types (Preact's typings tell the types apart by `type`).
  const input = { type, ...rest } as JSX.IntrinsicElements['input'];
  return (
    <div class="field">
      <label for={id}>{label}</label>
      <input id={id} aria-describedby={hint ? `${id}-hint` : undefined} {...input} />
      {hint && (
        <span id={`${id}-hint`} class="hint">
          {hint}
        </span>
      )}
    </div>
  );
}

/**
 * The expiry. A rotated key's life only shortens (docs/decisions.md#key-rotation: its expiry can't be
 * extended nor removed), so its field is required and goes no later than the expiry it has.
 */
function ExpiryField({ existing, value, onInput }: { existing?: ApiKey; value: string; onInput: (event: Event) => void }) {
  if (existing?.rotated_to == null || !existing.expires_at) {
    return <Field id="key-expires" label="Expires (optional, your local time)" type="datetime-local" value={value} onInput={onInput} />;
  }
  const hint = `Rotated to #${existing.rotated_to}: its expiry can be brought forward, not extended or removed`;
  const max = toLocalInput(existing.expires_at);
  return (
    <Field
      id="key-expires"
      label="Expires (your local time)"
      hint={hint}
      type="datetime-local"
      value={value}
      onInput={onInput}
      max={max}
      required
    />
  );
}

/**
 * The MCP scopes as checkboxes, each described by the tools it grants here. The specification's
 * scopes that grant none on this server yet (shared/keys/mcp-scopes.ts, the one scope -> tool
 * table) are folded apart, under a summary that says so (open when the key holds one of them), so
 * that nobody expects a tool from them and the form stays short.
 */
function Scopes({ selected, onChange }: { selected: Fields['scopes']; onChange: (scopes: Fields['scopes']) => void }) {
  const granting = MCP_SCOPES.filter((scope) => toolsOfScope(scope).length > 0);
  const idle = MCP_SCOPES.filter((scope) => toolsOfScope(scope).length === 0);
  const box = (scope: (typeof MCP_SCOPES)[number]) => {
    const tools = toolsOfScope(scope);
    return (
      <div key={scope} class="scope">
        <label class="check">
          <input
            type="checkbox"
            aria-describedby={`scope-${scope}`}
            checked={selected.includes(scope)}
            onChange={(event) => onChange(event.currentTarget.checked ? [...selected, scope] : selected.filter((s) => s !== scope))}
          />
          {scope}
        </label>
        <span id={`scope-${scope}`} class="hint">
          {tools.length ? tools.join(', ') : 'grants no tool here yet'}
        </span>
      </div>
    );
  };
  return (
    <fieldset class="scopes">
      <legend>MCP scopes</legend>
      {granting.map(box)}
      {idle.length > 0 && (
        <details class="idle-scopes" open={idle.some((scope) => selected.includes(scope))}>
          <summary>{idle.length} more scopes of the MCP specification that grant no tool here yet</summary>
          <div class="scope-grid">{idle.map(box)}</div>
        </details>
      )}
    </fieldset>
  );
}
