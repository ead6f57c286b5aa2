/**
 * The audit log, newest first: changes and key usage, the admins' reads (`list-keys`) one click
 * away (parts/audit-pages.ts); filter by key, action and outcome, page forward (the service's
 * cursor) and back (the cursors already seen), and for updates what changed, before and after, or,
 * for a refused one, what was asked and not applied.
 */
import { useState } from 'preact/hooks';
import { data, ofOrg, type AuditDiff, type AuditRecord } from '../api';
import { useApi } from '../parts/api-context';
import { KeyIdField } from '../parts/key-id-field';
import { shortValue, when } from '../parts/format';
import { useKnownKeys, type KnownKeys } from '../parts/known-keys';
import { auditPage, READ_ACTIONS } from '../parts/audit-pages';
import { useLoad } from '../parts/load';
import { Loading, PageHeading, TableRegion } from '../parts/page';

/** Actions the audit log records, offered as suggestions (any action name may be typed: MCP calls are `mcp:<method>[:<tool>]`). */
const ACTIONS = [
  'create-session',
  'revoke-session',
  'list-keys',
  'create-key',
  'update-key',
  'rotate-key',
  'delete-key',
  'update-game',
  'update-stream',
  'mcp:tools/call:create_session',
];

interface Filters {
  keyId: string;
  action: string;
  outcome: '' | 'success' | 'refused';
  /** Show the admins' reads (list-keys) too. */
  withReads: boolean;
}

/**
 * The audit page of `orgId`. Keys read by name where the member may list them (`mayListKeys`,
 * undefined while the role is not known yet); a record names the key's id and prefix only.
 */
export function AuditPage({ orgId, mayListKeys }: { orgId: number; mayListKeys: boolean | undefined }) {
  const api = useApi();
  // Reading the audit log takes the permission listing keys takes: ask at once, not after the role is known.
  const known = useKnownKeys(orgId, mayListKeys ?? true);
  const [form, setForm] = useState<Filters>({ keyId: '', action: '', outcome: '', withReads: false });
  const [filters, setFilters] = useState(form);
  // The cursors of the pages before this one (the first page has none).
  const [cursors, setCursors] = useState<(string | undefined)[]>([undefined]);
  const cursor = cursors[cursors.length - 1];
  const [loaded] = useLoad(
    () =>
      auditPage({ withReads: filters.withReads, action: filters.action, cursor }, (from, limit) =>
        data(
          api.GET(
            '/api/org-api-keys/audit-log',
            ofOrg(orgId, {
              key_id: filters.keyId,
              audit_action: filters.action,
              outcome: filters.outcome || undefined,
              limit: String(limit),
              cursor: from,
            }),
          ),
        ),
      ),
    [orgId, filters, cursor],
  );
  const show = (next: Filters) => {
    setFilters(next);
    setCursors([undefined]);
  };
  const apply = (event: Event) => {
    event.preventDefault();
    show(form);
  };
  // The reads switch applies at once (one click), with the filters as they are in the form.
  const toggleReads = (withReads: boolean) => {
    setForm({ ...form, withReads });
    show({ ...form, withReads });
  };
  return (
    <>
      <PageHeading>Audit log</PageHeading>
      <FilterForm form={form} setForm={setForm} onSubmit={apply} known={known} />
      <label class="check">
        <input type="checkbox" checked={form.withReads} onChange={(e) => toggleReads(e.currentTarget.checked)} />
        Show reads too ({[...READ_ACTIONS].join(', ')}: the keys list the console loads on every visit)
      </label>
      {/* As on Usage: the rows show once the keys' names are known, so their Key column does not change under the reader. */}
      <Loading loaded={known.ready ? loaded : { state: 'loading' }}>
        {(page) => (
          <>
            <AuditTable records={page.records} known={known} />
            <nav class="buttons" aria-label="Audit log pages">
              <button type="button" disabled={cursors.length === 1} onClick={() => setCursors(cursors.slice(0, -1))}>
                Newer
              </button>
              <span>Page {cursors.length}</span>
              <button type="button" disabled={!page.next_cursor} onClick={() => setCursors([...cursors, page.next_cursor ?? undefined])}>
                Older
              </button>
            </nav>
          </>
        )}
      </Loading>
    </>
  );
}

interface FilterFormProps {
  readonly form: Filters;
  readonly setForm: (filters: Filters) => void;
  readonly onSubmit: (event: Event) => void;
  readonly known: KnownKeys;
}

function FilterForm({ form, setForm, onSubmit, known }: FilterFormProps) {
  return (
    <form class="inline" onSubmit={onSubmit}>
      <KeyIdField id="audit-key" label="Key id" value={form.keyId} onChange={(keyId) => setForm({ ...form, keyId })} known={known} />
      <div class="field">
        <label for="audit-action">Action</label>
        <input
          id="audit-action"
          list="audit-actions"
          aria-describedby="audit-action-hint"
          value={form.action}
          onInput={(e) => setForm({ ...form, action: e.currentTarget.value.trim() })}
        />
        <span id="audit-action-hint" class="hint">
          Blank: every action
        </span>
        <datalist id="audit-actions">
          {ACTIONS.map((a) => (
            <option key={a} value={a} />
          ))}
        </datalist>
      </div>
      <div class="field">
        <label for="audit-outcome">Outcome</label>
        <select
          id="audit-outcome"
          value={form.outcome}
          onChange={(e) => setForm({ ...form, outcome: e.currentTarget.value as Filters['outcome'] })}
        >
          <option value="">Any</option>
          <option value="success">Success</option>
          <option value="refused">Refused</option>
        </select>
      </div>
      <button type="submit" class="primary">
        Filter
      </button>
    </form>
  );
}

function AuditTable({ records, known }: { records: readonly AuditRecord[]; known: KnownKeys }) {
  if (records.length === 0) return <p>No records match.</p>;
  return (
    <TableRegion label="Audit records" heads={['When', 'Action', 'Outcome', 'Key', 'By', 'Target', 'Changes']}>
      {records.map((r) => (
        <tr key={r.request_id + r.at + r.action}>
          <td>{when(r.at)}</td>
          <th scope="row">{r.action}</th>
          <td class={r.status < 400 ? 'ok' : 'refused'}>{r.status < 400 ? `Success (${r.status})` : `Refused (${r.status})`}</td>
          <td>{keyCell(r, known)}</td>
          <td>{r.actor ?? 'API key'}</td>
          <td>{r.game_id ? `game ${r.game_id}` : r.stream_id ? `stream ${r.stream_id}` : '—'}</td>
          <td>
            <Changes record={r} />
          </td>
        </tr>
      ))}
    </TableRegion>
  );
}

/** A record's key: its label when listed, else the id and the prefix the record keeps (a deleted key's too). */
function keyCell(record: AuditRecord, known: KnownKeys): string {
  if (record.key_id === null) return '—';
  const id = record.key_id;
  return known.get(id) ? known.label(id) : `#${id} ${record.key_prefix ?? ''}`;
}

/**
 * What an update changed: "field: before → after" (older records name the fields only). A refused
 * update changed nothing: it says so, and lists what was asked without the before / after marks.
 */
function Changes({ record }: { record: AuditRecord }) {
  // `changes` as an object: the contract's first shape of the diff, accepted too.
  const diff = record.diff ?? (record.changes && !Array.isArray(record.changes) ? (record.changes as AuditDiff) : null);
  const fields = record.changes?.length && Array.isArray(record.changes) ? record.changes.join(', ') : '—';
  if (record.status >= 400) {
    if (!diff && fields === '—') return <>—</>;
    return (
      <div class="refused-change">
        <strong>Not applied.</strong> Asked:{' '}
        {diff
          ? Object.entries(diff)
              .map(([field, { after }]) => `${field} → ${shortValue(after)}`)
              .join('; ')
          : fields}
      </div>
    );
  }
  if (!diff) return <>{fields}</>;
  return (
    <ul class="changes">
      {Object.entries(diff).map(([field, { before, after }]) => (
        <li key={field}>
          <strong>{field}</strong>: <del>{shortValue(before)}</del> → <ins>{shortValue(after)}</ins>
        </li>
      ))}
    </ul>
  );
}
