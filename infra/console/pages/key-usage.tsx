/**
 * The usage of one key per day as a chart: a picker over the keys the report counts (those with
 * sessions or refused calls in the range), the busiest first. The per-key table under it keeps the
 * numbers of every key.
 */
import { useMemo, useState } from 'preact/hooks';
import type { UsageReport } from '../api';
import { DayChart } from '../parts/chart';
import { count, countSeries } from '../parts/counts-table';
import { subjectOf, type KnownKeys } from '../parts/known-keys';

/** The report's key ids, by sessions created and then refused calls in the range, most first (ties: by id). */
function keysByActivity(report: UsageReport): number[] {
  const activity = new Map<number, number>();
  for (const row of report.by_key) {
    const calls = count(row, 'created') + count(row, 'rate_limited') + count(row, 'forbidden');
    activity.set(row.key_id, (activity.get(row.key_id) ?? 0) + calls);
  }
  return [...activity.keys()].sort((a, b) => activity.get(b)! - activity.get(a)! || a - b);
}

/** The key picker and its chart over `days` (the report's), each key by name and prefix where `known`; the report has at least one key row. */
export function KeyChart({ report, days, known }: { report: UsageReport; days: readonly string[]; known: KnownKeys }) {
  const keys = useMemo(() => keysByActivity(report), [report]);
  const [picked, setPicked] = useState<number>();
  const keyId = picked !== undefined && keys.includes(picked) ? picked : keys[0]!;
  // Every day of the range, 0 where the key has no row (the report lists a key's active days only).
  const series = useMemo(() => {
    const rows = new Map(report.by_key.filter((r) => r.key_id === keyId).map((r) => [r.date, r]));
    return countSeries(days.map((d) => rows.get(d) ?? {}));
  }, [report, keyId, days]);
  return (
    <>
      <div class="field">
        <label for="usage-chart-key">Key to chart</label>
        <select id="usage-chart-key" value={String(keyId)} onChange={(e) => setPicked(Number(e.currentTarget.value))}>
          {keys.map((id) => (
            <option key={id} value={String(id)}>
              {known.label(id)}
            </option>
          ))}
        </select>
      </div>
      <DayChart
        days={days}
        series={series}
        caption={`Sessions and refused calls per day, ${subjectOf(keyId, known)}, ${report.from} to ${report.to}`}
      />
    </>
  );
}
