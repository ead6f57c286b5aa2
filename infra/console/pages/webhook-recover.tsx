/**
 * Recover missed events (docs/webhooks.md#recovery): the window (since, until; local time, to the
 * minute), the count of events the endpoint has not received with a 2xx in it, asked of the service
 * as a dry run whenever the window changes, and the Recover button that queues them (the same
 * `webhook-id`s, at the endpoint's pace). A paused endpoint is counted but not sent to: the button
 * waits for its resume. A window of more than one call's 1,000 events says where the rest starts,
 * and "Continue from there" moves the window on.
 */
import { useEffect, useRef, useState } from 'preact/hooks';
import { data, type Webhook, type WebhookRecovery } from '../api';
import { useApi } from '../parts/api-context';
import { Dialog } from '../parts/dialog';
import { instantOf, toLocalInput } from '../parts/format';
import { failure } from '../parts/load';
import { Notice } from '../parts/page';
import { Time } from '../parts/time';
import { routeHash } from '../router';

/** Props of {@link RecoverDialog}. */
export interface RecoverDialogProps {
  readonly orgId: number;
  readonly webhook: Webhook;
  /** The window's first start (ISO): when the endpoint was paused, else a day ago. */
  readonly since: string;
  /** What the dialog says first (an endpoint just resumed: why it offers this). */
  readonly intro?: string;
  readonly onClose: () => void;
  /** After the events were queued: the page loads again (the deliveries show them pending). */
  readonly onRecovered: () => void;
}

/** The window's default start when the endpoint was never paused: a day ago. */
export const defaultSince = (webhook: Webhook) => webhook.paused_at ?? new Date(Date.now() - 86_400_000).toISOString();

/** What `count` events are, in words. */
const events = (count: number) => `${count.toLocaleString('en')} ${count === 1 ? 'event' : 'events'}`;

/** The recover dialog of `webhook`. */
export function RecoverDialog({ orgId, webhook, since: first, intro, onClose, onRecovered }: RecoverDialogProps) {
  const api = useApi();
  const [start, setStart] = useState(first);
  const [since, setSince] = useState(toLocalInput(first));
  const [until, setUntil] = useState('');
  const [counted, setCounted] = useState<WebhookRecovery>();
  const [problem, setProblem] = useState<string>();
  const [sent, setSent] = useState<WebhookRecovery>();
  const [busy, setBusy] = useState(false);
  // Once sent, Recover is gone: the focus goes to Close, not to the page's top.
  const closeButton = useRef<HTMLButtonElement>(null);
  useEffect(() => {
    if (sent) closeButton.current?.focus();
  }, [sent]);
  const body = (dry_run: boolean) => ({
    org_id: orgId,
    id: webhook.id,
    since: instantOf(since, start)!,
    ...(until ? { until: instantOf(until, null)! } : {}),
    dry_run,
  });
  // The count follows the window; a field typed in part waits a moment, and an older answer never replaces a newer one.
  useEffect(() => {
    setCounted(undefined);
    setProblem(since ? undefined : 'Give the window’s start.');
    if (!since) return;
    let current = true;
    const timer = setTimeout(() => {
      data(api.POST('/api/org-api-keys/recover-webhook', { body: body(true) })).then(
        (answer) => current && setCounted(answer),
        (error: unknown) => current && setProblem(failure(error).message),
      );
    }, 300);
    return () => {
      current = false;
      clearTimeout(timer);
    };
  }, [since, until]);
  const recover = async (event: Event) => {
    event.preventDefault();
    setBusy(true);
    try {
      setSent(await data(api.POST('/api/org-api-keys/recover-webhook', { body: body(false) })));
      onRecovered();
    } catch (error) {
      setProblem(failure(error).message);
    } finally {
      setBusy(false);
    }
  };
  const continueFrom = (next: string) => {
    setStart(next);
    setSince(toLocalInput(next));
    setSent(undefined);
  };
  const deliveries = routeHash({ page: 'webhooks', orgId, itemId: webhook.id, section: 'deliveries' });
  const rest = (sent ?? counted)?.next_since;
  return (
    <Dialog title={`Recover missed events of endpoint #${webhook.id}`} onClose={onClose}>
      <form class="stack" onSubmit={recover}>
        {intro && <p>{intro}</p>}
        <p>
          Every event of the window that <span class="url">{webhook.url}</span> has not received with a 2xx (skipped while paused, failed,
          given up) is sent again, with its first <code>webhook-id</code>, at the endpoint’s usual pace. Events are kept 30 days.
        </p>
        <div class="field">
          <label for="recover-since">Since (your local time)</label>
          <input id="recover-since" type="datetime-local" required value={since} onInput={(e) => setSince(e.currentTarget.value)} />
        </div>
        <div class="field">
          <label for="recover-until">Until (optional, your local time)</label>
          <input
            id="recover-until"
            type="datetime-local"
            aria-describedby="recover-until-hint"
            value={until}
            onInput={(e) => setUntil(e.currentTarget.value)}
          />
          <span id="recover-until-hint" class="hint">
            Empty: now
          </span>
        </div>
        <p role="status" aria-live="polite">
          {sent
            ? `${events(sent.count)} queued for endpoint #${webhook.id}.`
            : counted
              ? `${events(counted.count)} will be sent again.`
              : !problem && 'Counting…'}
        </p>
        {rest && (
          <p>
            The window holds more than one recovery sends (1,000 events): this one covers those before <Time iso={rest} />; the rest follow
            from there.{' '}
            {sent && (
              <button type="button" onClick={() => continueFrom(rest)}>
                Continue from there
              </button>
            )}
          </p>
        )}
        {sent && (
          <p>
            <a href={deliveries} onClick={onClose}>
              See them in the deliveries
            </a>
          </p>
        )}
        {!webhook.is_active && (
          <Notice kind="info">The endpoint is paused: resume it first, then recover (a paused endpoint is sent nothing).</Notice>
        )}
        {problem && <Notice kind="error">{problem}</Notice>}
        <div class="buttons dialog-actions">
          {!sent && (
            <button type="submit" class="primary" disabled={busy || !webhook.is_active || !counted || counted.count === 0}>
              Recover
            </button>
          )}
          <button type="button" ref={closeButton} onClick={onClose}>
            {sent ? 'Close' : 'Cancel'}
          </button>
        </div>
      </form>
    </Dialog>
  );
}
