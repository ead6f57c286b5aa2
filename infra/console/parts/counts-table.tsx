/**
 * The usage counts as a table: the numbers of each chart (a chart is one image to assistive
 * technology, so every figure it draws is also here), and the per-key breakdown.
 */
import type { UsageCounts } from '../api';
import { formatNumber } from './locale';
import { TableRegion } from './page';

/** The counts shown, in order, with their column names. */
const COUNTS: readonly { field: keyof UsageCounts; label: string }[] = [
  { field: 'created', label: 'Created' },
  { field: 'consumed', label: 'Consumed' },
  { field: 'expired', label: 'Expired' },
  { field: 'revoked', label: 'Revoked' },
  { field: 'rate_limited', label: 'Rate-limited (429)' },
  { field: 'forbidden', label: 'Forbidden (403)' },
];

/** A count of a row; absent is 0. */
export const count = (row: Partial<UsageCounts>, field: keyof UsageCounts) => row[field] ?? 0;

/** A chart's series: one per count, its values over `rows` (one row a day; absent counts are 0). */
export function countSeries(rows: readonly Partial<UsageCounts>[]): { label: string; values: number[] }[] {
  return COUNTS.map(({ field, label }) => ({ label, values: rows.map((row) => count(row, field)) }));
}

/** A row: its heading cells, then its counts. */
interface CountsRow {
  readonly head: readonly string[];
  readonly counts: UsageCounts;
}

/** The numbers as a table (the chart's data, and the per-key breakdown). */
export function CountsTable({ label, heads, rows }: { label: string; heads: readonly string[]; rows: readonly CountsRow[] }) {
  return (
    <TableRegion label={label} heads={[...heads, ...COUNTS.map((c) => c.label)]} class="numbers">
      {rows.map((row) => (
        <tr key={row.head.join(' ')}>
          {row.head.map((h, i) => (i === 0 ? <th scope="row">{h}</th> : <td>{h}</td>))}
          {COUNTS.map(({ field }) => (
            <td key={field}>{formatNumber(count(row.counts, field))}</td>
          ))}
        </tr>
      ))}
    </TableRegion>
  );
}
