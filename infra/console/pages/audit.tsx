/**
 * The audit log, newest first: changes and key usage, the admins' reads (list-keys, list-webhooks,
 * list-webhook-deliveries) one click away (parts/audit-pages.ts); filter by key, action (a choice
 * of the recorded actions, or another typed) and outcome, page forward (the service's cursor) and
 * back (the cursors already seen), and for updates what changed (parts/audit-table.tsx).
 */
import { useState } from 'preact/hooks';
import { data, ofOrg } from '../api';
import { useApi } from '../parts/api-context';
import { AUDIT_ACTIONS, READ_ACTIONS } from '../parts/audit-actions';
import { auditPage } from '../parts/audit-pages';
import { AuditTable } from '../parts/audit-table';
import { KeyIdField } from '../parts/key-id-field';
import { useKnownKeys, type KnownKeys } from '../parts/known-keys';
import { useLoad } from '../parts/load';
import { Loading, PageHeading } from '../parts/page';
import { Pager, useCursors } from '../parts/pager';

interface Filters {
  keyId: string;
  action: string;
  outcome: '' | 'success' | 'refused';
  /** Show the admins' reads too. */
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
  const at = useCursors();
  const [loaded] = useLoad(
    () =>
      auditPage({ withReads: filters.withReads, action: filters.action, cursor: at.cursor }, (from, limit) =>
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
    [orgId, filters, at.cursor],
  );
  const show = (next: Filters) => {
    setFilters(next);
    at.reset();
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
        Show reads too ({[...READ_ACTIONS].join(', ')}: the lists the console loads on every visit)
      </label>
      {/* As on Usage: the rows show once the keys' names are known, so their Key column does not change under the reader. */}
      <Loading loaded={known.ready ? loaded : { state: 'loading' }}>
        {(page) => (
          <>
            <AuditTable records={page.records} known={known} />
            <Pager label="Audit log pages" at={at} next={page.next_cursor} />
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

/** The choice "Another action…" opens a text field: an MCP tool call not listed (`mcp:tools/call:<tool>`). */
const OTHER = 'other';

function FilterForm({ form, setForm, onSubmit, known }: FilterFormProps) {
  const [typing, setTyping] = useState(false);
  const listed = form.action === '' || AUDIT_ACTIONS.includes(form.action);
  const other = typing || !listed;
  return (
    <form class="inline" onSubmit={onSubmit}>
      <KeyIdField id="audit-key" label="Key id" value={form.keyId} onChange={(keyId) => setForm({ ...form, keyId })} known={known} />
      <div class="field">
        <label for="audit-action">Action</label>
        <select
          id="audit-action"
          value={other ? OTHER : form.action}
          onChange={(e) => {
            const value = e.currentTarget.value;
            setTyping(value === OTHER);
            setForm({ ...form, action: value === OTHER ? '' : value });
          }}
        >
          <option value="">Every action</option>
          {AUDIT_ACTIONS.map((a) => (
            <option key={a} value={a}>
              {a}
            </option>
          ))}
          <option value={OTHER}>Another action…</option>
        </select>
      </div>
      {other && (
        <div class="field">
          <label for="audit-action-other">Action name</label>
          <input
            id="audit-action-other"
            aria-describedby="audit-action-hint"
            value={form.action}
            onInput={(e) => setForm({ ...form, action: e.currentTarget.value.trim() })}
          />
          <span id="audit-action-hint" class="hint">
            as recorded, such as mcp:tools/call:revoke_session
          </span>
        </div>
      )}
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
