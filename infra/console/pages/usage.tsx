/**
 * Usage: sessions created / consumed / expired / revoked and the refused calls (429 rate-limited,
 * 403 forbidden) per day, for the organization or one key, as a chart and as a table; and the same
 * counts per key per day, as a chart of the key picked and as a table of every key.
 */
import { useMemo, useState } from 'preact/hooks';
import { data, ofOrg, type UsageReport } from '../api';
import { useApi } from '../parts/api-context';
import { KeyIdField } from '../parts/key-id-field';
import { DayChart } from '../parts/chart';
import { countSeries, CountsTable } from '../parts/counts-table';
import { utcDay } from '../parts/format';
import { subjectOf, useKnownKeys, type KnownKeys } from '../parts/known-keys';
import { useLoad } from '../parts/load';
import { Loading, Notice, PageHeading } from '../parts/page';
import { KeyChart } from './key-usage';

/**
 * The usage page of `orgId`. Keys read by name and prefix when the member may list them
 * (`mayListKeys`, undefined while the role is not known yet), else by id: the report names ids only.
 */
export function UsagePage({ orgId, mayListKeys }: { orgId: number; mayListKeys: boolean | undefined }) {
  const api = useApi();
  const known = useKnownKeys(orgId, mayListKeys);
  const [range, setRange] = useState(() => ({ from: utcDay(new Date(Date.now() - 13 * 86_400_000)), to: utcDay(new Date()), keyId: '' }));
  const [form, setForm] = useState(range);
  const [loaded] = useLoad(
    () => data(api.GET('/api/org-api-keys/usage', ofOrg(orgId, { from: range.from, to: range.to, key_id: range.keyId }))),
    [orgId, range],
  );
  const submit = (event: Event) => {
    event.preventDefault();
    setRange(form);
  };
  return (
    <>
      <PageHeading>Usage</PageHeading>
      <form class="inline" onSubmit={submit}>
        <div class="field">
          <label for="usage-from">From (UTC day)</label>
          <input
            id="usage-from"
            type="date"
            required
            value={form.from}
            onInput={(e) => setForm({ ...form, from: e.currentTarget.value })}
          />
        </div>
        <div class="field">
          <label for="usage-to">To</label>
          <input id="usage-to" type="date" required value={form.to} onInput={(e) => setForm({ ...form, to: e.currentTarget.value })} />
        </div>
        <KeyIdField
          id="usage-key"
          label="Key id (blank: every key)"
          value={form.keyId}
          onChange={(keyId) => setForm({ ...form, keyId })}
          known={known}
        />
        <button type="submit" class="primary">
          Show
        </button>
      </form>
      {/* The report waits for the key list, so its labels do not change under the reader. */}
      <Loading loaded={known.ready ? loaded : { state: 'loading' }}>
        {(report) => <Report report={report} keyId={range.keyId} known={known} />}
      </Loading>
    </>
  );
}

function Report({ report, keyId, known }: { report: UsageReport; keyId: string; known: KnownKeys }) {
  const series = useMemo(() => countSeries(report.days), [report]);
  const days = useMemo(() => report.days.map((d) => d.date), [report]);
  const subject = keyId ? subjectOf(Number(keyId), known) : 'every key';
  return (
    <>
      {report.truncated && (
        <Notice kind="info">
          The figures are cut short (lower bounds): the range holds more sessions than one report counts, or the database was too slow to
          read them all in time. A shorter range reads more of them.
        </Notice>
      )}
      {report.complete_from > report.from && (
        <Notice kind="info">Days before {report.complete_from} may count fewer sessions: their tokens are past retention.</Notice>
      )}
      <h2>Per day, {subject}</h2>
      <DayChart days={days} series={series} caption={`Sessions and refused calls per day, ${subject}, ${report.from} to ${report.to}`} />
      <CountsTable label={`Per day, ${subject}`} rows={report.days.map((d) => ({ head: [d.date], counts: d }))} heads={['Day']} />
      <h2>Per key and day</h2>
      {report.by_key.length === 0 ? (
        <p>No key minted sessions or was refused in this range.</p>
      ) : (
        <>
          <KeyChart report={report} days={days} known={known} />
          <CountsTable
            label="Per key and day"
            rows={report.by_key.map((r) => ({ head: [known.label(r.key_id), r.date], counts: r }))}
            heads={['Key', 'Day']}
          />
        </>
      )}
    </>
  );
}
