/**
 * One endpoint's deliveries, newest first, a page at a time (the service's cursor forward, the
 * cursors seen back): each with its event type, status, attempts and answers, the log of its
 * attempts one click away, and "Retry". A retry reloads the list, so the row shows what the
 * service holds (pending at once, then the attempt's outcome on "Refresh").
 */
import type { ComponentChildren } from 'preact';
import { useState } from 'preact/hooks';
import { data, ofOrg, type Webhook, type WebhookAttempt, type WebhookDelivery } from '../api';
import { useApi } from '../parts/api-context';
import { when, whenExact } from '../parts/format';
import { failure, useLoad } from '../parts/load';
import { formatNumber } from '../parts/locale';
import { Loading, Notice, TableRegion } from '../parts/page';

/** Deliveries a page holds. */
const PAGE_SIZE = 20;

/** A status as the list says it (docs/webhooks.md#deliveries-list-retry-test). */
const STATUS_TEXT: Record<WebhookDelivery['status'], string> = {
  pending: 'Pending',
  succeeded: 'Succeeded',
  failed: 'Failed, will retry',
  exhausted: 'Exhausted',
};

/** Props of {@link WebhookDeliveries}. */
export interface WebhookDeliveriesProps {
  readonly orgId: number;
  readonly webhook: Webhook;
  readonly onClose: () => void;
}

/** The deliveries section of one endpoint, below the endpoints. */
export function WebhookDeliveries({ orgId, webhook, onClose }: WebhookDeliveriesProps) {
  const api = useApi();
  // The cursors of the pages before this one (the first page has none).
  const [cursors, setCursors] = useState<(string | undefined)[]>([undefined]);
  const cursor = cursors[cursors.length - 1];
  const [loaded, reload] = useLoad(
    async () => ({
      cursor,
      page: await data(
        api.GET(
          '/api/org-api-keys/list-webhook-deliveries',
          ofOrg(orgId, { webhook_id: String(webhook.id), limit: String(PAGE_SIZE), cursor }),
        ),
      ),
    }),
    [orgId, webhook.id, cursor],
  );
  // A page keeps showing while the next one loads: never under the next one's number.
  const current = loaded.state === 'ready' && loaded.data.cursor !== cursor ? { state: 'loading' as const } : loaded;
  const [message, setMessage] = useState<{ kind: 'error' | 'success'; text: string }>();
  const retry = async (delivery: WebhookDelivery) => {
    try {
      await api.POST('/api/org-api-keys/retry-webhook-delivery', { body: { org_id: orgId, delivery_id: delivery.id } });
      setMessage({ kind: 'success', text: `Delivery ${delivery.id} is attempted again now.` });
      reload();
    } catch (error) {
      setMessage({ kind: 'error', text: failure(error).message });
    }
  };
  return (
    <section class="deliveries" aria-labelledby="deliveries-heading">
      <h2 id="deliveries-heading">Deliveries to endpoint #{webhook.id}</h2>
      <p class="sub">{webhook.url}</p>
      <div class="buttons">
        <button type="button" onClick={reload}>
          Refresh
        </button>
        <button type="button" onClick={onClose}>
          Close deliveries
        </button>
      </div>
      {!webhook.is_active && <Notice kind="info">Paused: resume the endpoint to retry its deliveries or send it a test event.</Notice>}
      {message && <Notice kind={message.kind}>{message.text}</Notice>}
      <Loading loaded={current}>
        {({ page }) => (
          <>
            <DeliveriesTable deliveries={page.deliveries} active={webhook.is_active} onRetry={(d) => void retry(d)} />
            <nav class="buttons" aria-label="Delivery pages">
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
    </section>
  );
}

/** The table's columns, in order (a narrow screen's cards label each value with its column). */
const COLUMNS = ['Event', 'Status', 'Attempts', 'Last code', 'Created', 'Last attempt', 'Next attempt', 'Attempt log', 'Actions'] as const;
type Column = (typeof COLUMNS)[number];

function Cell({ column, class: className, children }: { column: Column; class?: string; children: ComponentChildren }) {
  return (
    <td class={className} data-label={column}>
      {children}
    </td>
  );
}

interface TableProps {
  readonly deliveries: readonly WebhookDelivery[];
  /** Whether the endpoint is active: a paused one's deliveries offer no retry (the service refuses it). */
  readonly active: boolean;
  readonly onRetry: (delivery: WebhookDelivery) => void;
}

/** The deliveries: a table at desktop widths, cards on a narrow screen (views.css). */
function DeliveriesTable({ deliveries, active, onRetry }: TableProps) {
  if (deliveries.length === 0) return <p>No deliveries yet (they are kept 30 days).</p>;
  return (
    <TableRegion label={'Deliveries'} class="fits cards" heads={COLUMNS}>
      {deliveries.map((d) => (
        <tr key={d.id} data-delivery-id={d.id}>
          <th scope="row">
            {d.event_type}
            <span class="sub">{d.id}</span>
          </th>
          <Cell column="Status" class={`status ${d.status}`}>
            {STATUS_TEXT[d.status]}
          </Cell>
          <Cell column="Attempts">{formatNumber(d.attempts)}</Cell>
          <Cell column="Last code">{d.last_status_code ?? '—'}</Cell>
          <Cell column="Created">{when(d.created_at)}</Cell>
          <Cell column="Last attempt">{when(d.last_attempt_at)}</Cell>
          <Cell column="Next attempt">{when(d.next_attempt_at)}</Cell>
          <Cell column="Attempt log">
            <AttemptLog attempts={d.attempts_log} />
          </Cell>
          <Cell column="Actions" class="actions">
            {active && (
              <button type="button" aria-label={`Retry ${d.event_type} ${d.id}`} onClick={() => onRetry(d)}>
                Retry
              </button>
            )}
          </Cell>
        </tr>
      ))}
    </TableRegion>
  );
}

/** The attempts, oldest first (the last 20), folded: time, answer or why none came, duration. */
function AttemptLog({ attempts }: { attempts: readonly WebhookAttempt[] }) {
  if (attempts.length === 0) return <>none yet</>;
  return (
    <details>
      <summary>
        {attempts.length} attempt{attempts.length === 1 ? '' : 's'}
      </summary>
      <ol class="attempts">
        {attempts.map((a) => (
          <li key={a.at}>
            {whenExact(a.at)}: {a.status_code ?? 'no answer'}
            {a.error ? ` (${a.error})` : ''}, {formatNumber(a.duration_ms)} ms
          </li>
        ))}
      </ol>
    </details>
  );
}
