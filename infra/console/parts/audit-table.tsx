/**
 * Audit records as a table (the audit log, a key's recent calls): when (to the second, the ISO
 * time on hover), the action, its outcome, the key, who, the target and, for updates, what
 * changed, before and after, or, for a refused one, what was asked and not applied. Below 60rem
 * each record is a card, every value under its column's name (views.css), so nothing is off-screen.
 */
import type { AuditDiff, AuditRecord } from '../api';
import { shortValue } from './format';
import type { KnownKeys } from './known-keys';
import { Cell, TableRegion } from './page';
import { Time } from './time';

const COLUMNS = ['When', 'Action', 'Outcome', 'Key', 'By', 'Target', 'Changes'] as const;

/** The records, newest first as given; `label` names the table's region. */
export function AuditTable({
  records,
  known,
  label = 'Audit records',
}: {
  records: readonly AuditRecord[];
  known: KnownKeys;
  label?: string;
}) {
  if (records.length === 0) return <p>No records match.</p>;
  return (
    <TableRegion label={label} class="audit cards" heads={COLUMNS}>
      {records.map((r) => (
        <tr key={r.request_id + r.at + r.action}>
          <Cell column="When" class="when">
            <Time iso={r.at} />
          </Cell>
          <th scope="row">{r.action}</th>
          <Cell column="Outcome" class={r.status < 400 ? 'ok' : 'refused'}>
            {r.status < 400 ? `Success (${r.status})` : `Refused (${r.status})`}
          </Cell>
          <Cell column="Key">{keyCell(r, known)}</Cell>
          <Cell column="By">{r.actor ?? 'API key'}</Cell>
          <Cell column="Target">{target(r)}</Cell>
          <Cell column="Changes">
            <Changes record={r} />
          </Cell>
        </tr>
      ))}
    </TableRegion>
  );
}

/** What a record acted on, besides its key. */
function target(r: AuditRecord): string {
  if (r.game_id) return `game ${r.game_id}`;
  if (r.stream_id) return `stream ${r.stream_id}`;
  return r.webhook_id ? `endpoint #${r.webhook_id}` : '—';
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
