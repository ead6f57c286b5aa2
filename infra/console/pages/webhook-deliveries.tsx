/**
 * One endpoint's deliveries, on its page: newest first, a page at a time (parts/pager.tsx), each
 * with its event type, status, attempts and answers, the log of its attempts one click away, and
 * "Retry". A delivery still pending (a test event just sent, a retry) is followed: the page loads
 * again after 0.5, 1, 2, 4 and 8 s, until none on it is pending (at most those five times; then
 * "Refresh" goes on). A delivery's details show its payload, the event as the receiver got it
 * (pretty-printed), and the id it got it under (its `webhook-id` header).
 */
import { useEffect, useRef, useState } from 'preact/hooks';
import { data, ofOrg, type Webhook, type WebhookAttempt, type WebhookDelivery } from '../api';
import { useApi } from '../parts/api-context';
import { Badge } from '../parts/badge';
import { failure, useLoad } from '../parts/load';
import { formatNumber } from '../parts/locale';
import { Cell, Loading, Notice, TableRegion, type Outcome } from '../parts/page';
import { Pager, useCursors } from '../parts/pager';
import { Time } from '../parts/time';

/** Deliveries a page holds. */
const PAGE_SIZE = 20;
/** Reloads that follow a pending delivery, the first after {@link FIRST_FOLLOW_MS}, each wait twice the one before. */
const MAX_FOLLOWS = 5;
const FIRST_FOLLOW_MS = 500;

/** A status as the list says it (docs/webhooks.md#deliveries-list-retry-test), with its badge's tone. */
export const DELIVERY_STATUS: Record<WebhookDelivery['status'], { text: string; tone: 'ok' | 'warn' | 'off' | 'bad' }> = {
  pending: { text: 'Pending', tone: 'warn' },
  succeeded: { text: 'Succeeded', tone: 'ok' },
  failed: { text: 'Failed, will retry', tone: 'bad' },
  exhausted: { text: 'Exhausted', tone: 'bad' },
  skipped: { text: 'Skipped while paused', tone: 'off' },
};

/** Props of {@link WebhookDeliveries}. */
export interface WebhookDeliveriesProps {
  readonly orgId: number;
  readonly webhook: Webhook;
  /** Changes when a test event was sent from the page: the newest page loads again, and is followed. */
  readonly round: number;
  /** Bring the section into view (and its heading into focus) when it is shown and at each new `round`. */
  readonly reveal: boolean;
  /** The newest deliveries, each time the first page loads (the page's health reads them). */
  readonly onNewest?: (deliveries: readonly WebhookDelivery[]) => void;
}

/** The deliveries section of one endpoint. */
export function WebhookDeliveries({ orgId, webhook, round, reveal, onNewest }: WebhookDeliveriesProps) {
  const api = useApi();
  const at = useCursors();
  const [loaded, reload] = useLoad(
    async () => ({
      cursor: at.cursor,
      page: await data(
        api.GET(
          '/api/org-api-keys/list-webhook-deliveries',
          ofOrg(orgId, { webhook_id: String(webhook.id), limit: String(PAGE_SIZE), cursor: at.cursor }),
        ),
      ),
    }),
    [orgId, webhook.id, at.cursor, round],
  );
  const heading = useRef<HTMLHeadingElement>(null);
  const revealed = useRef<number | undefined>(undefined);
  // Once per round, when the list is in (before, the page may be too short to scroll that far).
  // Focus moves with the view, so that a keyboard or a screen reader goes on from the deliveries.
  useEffect(() => {
    if (!reveal || loaded.state !== 'ready' || revealed.current === round) return;
    revealed.current = round;
    heading.current?.scrollIntoView({ block: 'start' });
    heading.current?.focus({ preventScroll: true });
  }, [reveal, round, loaded]);
  const [follows, setFollows] = useState(0);
  // A test sent from the page starts following anew, on the newest page.
  useEffect(() => {
    setFollows(0);
    at.reset();
  }, [round]);
  const pending = loaded.state === 'ready' && loaded.data.page.deliveries.some((d) => d.status === 'pending');
  useEffect(() => {
    if (loaded.state === 'ready' && loaded.data.cursor === undefined) onNewest?.(loaded.data.page.deliveries);
    if (!pending || follows >= MAX_FOLLOWS) return;
    const timer = setTimeout(
      () => {
        setFollows(follows + 1);
        reload();
      },
      FIRST_FOLLOW_MS * 2 ** follows,
    );
    return () => clearTimeout(timer);
  }, [loaded]);
  // A page keeps showing while the next one loads: never under the next one's number.
  const current = loaded.state === 'ready' && loaded.data.cursor !== at.cursor ? { state: 'loading' as const } : loaded;
  const [message, setMessage] = useState<Outcome>();
  const retry = async (delivery: WebhookDelivery) => {
    try {
      await api.POST('/api/org-api-keys/retry-webhook-delivery', { body: { org_id: orgId, delivery_id: delivery.id } });
      setMessage({ kind: 'success', text: `Delivery ${delivery.id} is attempted again now.` });
      setFollows(0);
      reload();
    } catch (error) {
      setMessage({ kind: 'error', text: failure(error).message });
    }
  };
  return (
    <section class="deliveries" aria-labelledby="deliveries-heading">
      <h2 id="deliveries-heading" ref={heading} tabIndex={-1}>
        Deliveries
      </h2>
      <div class="buttons">
        <button
          type="button"
          onClick={() => {
            setFollows(0);
            reload();
          }}
        >
          Refresh
        </button>
        {pending && follows < MAX_FOLLOWS && <span role="status">Following the pending delivery…</span>}
      </div>
      {!webhook.is_active && <Notice kind="info">Paused: resume the endpoint to retry its deliveries or send it a test event.</Notice>}
      {message && <Notice kind={message.kind}>{message.text}</Notice>}
      <Loading loaded={current}>
        {({ page }) => (
          <>
            <DeliveriesTable deliveries={page.deliveries} active={webhook.is_active} onRetry={(d) => void retry(d)} />
            <Pager label="Delivery pages" at={at} next={page.next_cursor} />
          </>
        )}
      </Loading>
    </section>
  );
}

/** The table's columns, in order (a narrow screen's cards label each value with its column). */
const COLUMNS = ['Event', 'Status', 'Attempts', 'Last code', 'Created', 'Last attempt', 'Next attempt', 'Details', 'Actions'] as const;

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
    <TableRegion label="Delivery list" class="fits cards" heads={COLUMNS}>
      {deliveries.map((d) => (
        <tr key={d.id} data-delivery-id={d.id}>
          <th scope="row">
            {d.event_type}
            <span class="sub">{d.id}</span>
          </th>
          <Cell column="Status" class={`status ${d.status}`}>
            <Badge {...DELIVERY_STATUS[d.status]} />
          </Cell>
          <Cell column="Attempts">{formatNumber(d.attempts)}</Cell>
          <Cell column="Last code">{d.last_status_code ?? '—'}</Cell>
          <Cell column="Created">
            <Time iso={d.created_at} />
          </Cell>
          <Cell column="Last attempt">
            <Time iso={d.last_attempt_at} />
          </Cell>
          <Cell column="Next attempt">
            <Time iso={d.next_attempt_at} />
          </Cell>
          <Cell column="Details">
            <DeliveryDetails delivery={d} />
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

/** A delivery folded: its attempts, oldest first (the last 20), and its payload as sent. */
function DeliveryDetails({ delivery }: { delivery: WebhookDelivery }) {
  const attempts = delivery.attempts_log;
  const payloadId = `payload-${delivery.id}`;
  return (
    <details>
      <summary>{attempts.length === 0 ? 'No attempt yet' : `${attempts.length} attempt${attempts.length === 1 ? '' : 's'}`}</summary>
      {attempts.length > 0 && <AttemptLog attempts={attempts} />}
      <p class="payload" id={payloadId}>
        Payload: the <code>{delivery.event_type}</code> event, sent with <code>webhook-id: {delivery.id}</code>
      </p>
      {/* A region named by the line above, focusable so that a keyboard scrolls a wide payload. */}
      <pre class="payload-body" role="region" tabIndex={0} aria-labelledby={payloadId}>
        <code>{JSON.stringify(delivery.payload, null, 2)}</code>
      </pre>
    </details>
  );
}

/** The attempts: time, answer or why none came, duration. */
function AttemptLog({ attempts }: { attempts: readonly WebhookAttempt[] }) {
  return (
    <ol class="attempts">
      {attempts.map((a) => (
        <li key={a.at}>
          <Time iso={a.at} />: {a.status_code ?? 'no answer'}
          {a.error ? ` (${a.error})` : ''}, {formatNumber(a.duration_ms)} ms
        </li>
      ))}
    </ol>
  );
}
