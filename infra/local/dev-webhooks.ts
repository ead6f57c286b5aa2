/**
 * `/dev/webhooks`: a webhook receiver on the local front, for trying deliveries without a server of
 * one's own (local runs only: the deployed stack has no such path). Register
 * `<baseUrl>/dev/webhooks/<any name>` as an endpoint (the start guide prints the line); every
 * delivery that arrives is kept (the last {@link KEPT} of them) and checked as a partner would check
 * it: with the stock `standardwebhooks` library and the secret of the endpoint registered at that
 * URL. `GET /dev/webhooks` shows them, newest first (`?format=json`: the same as JSON, for scripts
 * and tests), and the stream records kept in the local failures list (`stream-failures.ts`: what
 * the events worker could not turn into events), which `POST /dev/webhooks/failures/replay` hands
 * to the worker again (docs/runbook.md#webhook-records-unreadable).
 *
 * The answer is 204, or the status named by `?status=` in the registered URL (e.g.
 * `/dev/webhooks/flaky?status=503`), so retries, a 410's disabling and the deliveries list can be
 * watched locally too.
 */
import { ScanCommand, type DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { Webhook } from 'standardwebhooks';
import { escapeHtml } from '../../shared/platform/http/html.js';
import { sealingContext } from '../../shared/webhooks/secret-sealer.js';
import { secretSealer } from '../../shared/webhooks/services.js';
import type { KeptStreamRecord, LocalStreamFailures } from './stream-failures.js';

/** Where the receiver listens on the front. */
export const DEV_WEBHOOKS_PATH = '/dev/webhooks';

/** Deliveries kept in memory; older ones are dropped. */
const KEPT = 200;

/** The path that replays the kept stream records. */
const REPLAY_PATH = `${DEV_WEBHOOKS_PATH}/failures/replay`;

/** One delivery as it arrived. */
export interface ArrivedDelivery {
  readonly received_at: string;
  /** The path and query it was sent to. */
  readonly path: string;
  readonly webhook_id: string | null;
  readonly webhook_timestamp: string | null;
  readonly webhook_signature: string | null;
  readonly body: string;
  /** The event's `type`, when the body is the JSON of one. */
  readonly type: string | null;
  /** Whether the stock library verified it with the secret of the endpoint registered at this URL. */
  readonly verified: boolean;
  /** Why not, when it did not. */
  readonly verify_error: string | null;
  /** What the receiver answered. */
  readonly answered: number;
}

/** What the receiver needs to find an endpoint's secret. */
export interface DevWebhooksOptions {
  readonly baseUrl: () => string;
  readonly client: () => DynamoDBDocumentClient;
  readonly catalogTable: () => string;
  /** The local failures list (once the workers run). */
  readonly failures: () => LocalStreamFailures | undefined;
}

/** The receiver and its memory of what arrived. */
export function devWebhooks(options: DevWebhooksOptions) {
  const arrived: ArrivedDelivery[] = [];

  /** The secrets of the endpoints registered at `url` (several orgs may register the same one). */
  async function secretsFor(url: string): Promise<string[]> {
    const { Items = [] } = await options.client().send(
      new ScanCommand({
        TableName: options.catalogTable(),
        FilterExpression: 'begins_with(sk, :prefix) AND #url = :url',
        ExpressionAttributeNames: { '#url': 'url' },
        ExpressionAttributeValues: { ':prefix': 'WEBHOOK#', ':url': url },
      }),
    );
    const sealer = secretSealer();
    return Items.flatMap((item) => {
      const context = sealingContext(item.org_id as number, item.id as number);
      const sealed = [item.secret_sealed, item.previous_secret_sealed].filter((s): s is string => typeof s === 'string');
      return sealed.map((value) => sealer.open(value, context));
    });
  }

  async function receive(req: IncomingMessage, res: ServerResponse, url: URL, body: Buffer): Promise<void> {
    const header = (name: string) => {
      const value = req.headers[name];
      return typeof value === 'string' ? value : null;
    };
    const text = body.toString('utf8');
    const headers = {
      'webhook-id': header('webhook-id') ?? '',
      'webhook-timestamp': header('webhook-timestamp') ?? '',
      'webhook-signature': header('webhook-signature') ?? '',
    };
    const secrets = await secretsFor(options.baseUrl() + url.pathname + url.search);
    let verify_error: string | null = secrets.length === 0 ? 'no endpoint is registered at this URL' : null;
    let verified = false;
    for (const secret of secrets) {
      try {
        new Webhook(secret).verify(text, headers);
        verified = true;
        verify_error = null;
        break;
      } catch (error) {
        verify_error = (error as Error).message;
      }
    }
    const asked = Number(url.searchParams.get('status'));
    const answered = Number.isInteger(asked) && asked >= 200 && asked <= 599 ? asked : 204;
    arrived.unshift({
      received_at: new Date().toISOString(),
      path: url.pathname + url.search,
      webhook_id: header('webhook-id'),
      webhook_timestamp: header('webhook-timestamp'),
      webhook_signature: header('webhook-signature'),
      body: text,
      type: typeOf(text),
      verified,
      verify_error,
      answered,
    });
    arrived.length = Math.min(arrived.length, KEPT);
    res.writeHead(answered).end();
  }

  /** Hand the kept records to the worker again: JSON of what it did, or back to the page for the page's button (a form). */
  async function replay(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const failures = options.failures();
    if (!failures?.replaying()) {
      res
        .writeHead(409, { 'content-type': 'application/json; charset=utf-8' })
        .end(JSON.stringify({ error: 'the workers are not running' }));
      return;
    }
    const outcome = await failures.replay();
    if (req.headers['content-type']?.startsWith('application/x-www-form-urlencoded')) {
      res.writeHead(303, { location: DEV_WEBHOOKS_PATH }).end();
    } else {
      res.writeHead(200, { 'content-type': 'application/json; charset=utf-8' }).end(JSON.stringify(outcome));
    }
  }

  return {
    /** What arrived, newest first. */
    arrived: (): readonly ArrivedDelivery[] => arrived,
    /**
     * The front's server for `/dev/webhooks`: a POST below it is a delivery; a GET of it, the page.
     * @returns whether it served the request
     */
    async serve(req: IncomingMessage, res: ServerResponse, url: URL, body: Buffer): Promise<boolean> {
      if (url.pathname !== DEV_WEBHOOKS_PATH && !url.pathname.startsWith(`${DEV_WEBHOOKS_PATH}/`)) return false;
      const failures = options.failures()?.list() ?? [];
      if (req.method === 'POST' && url.pathname === REPLAY_PATH) {
        await replay(req, res);
      } else if (req.method === 'POST' && url.pathname.startsWith(`${DEV_WEBHOOKS_PATH}/`)) {
        await receive(req, res, url, body);
      } else if (req.method === 'GET' && url.pathname === DEV_WEBHOOKS_PATH) {
        if (url.searchParams.get('format') === 'json') {
          res.writeHead(200, { 'content-type': 'application/json; charset=utf-8' }).end(JSON.stringify({ deliveries: arrived, failures }));
        } else {
          res.writeHead(200, { 'content-type': 'text/html; charset=utf-8', 'cache-control': 'no-store' }).end(page(arrived, failures));
        }
      } else {
        res.writeHead(405, { allow: url.pathname === DEV_WEBHOOKS_PATH ? 'GET' : 'POST' }).end();
      }
      return true;
    },
  };
}

/** The receiver's type. */
export type DevWebhooks = ReturnType<typeof devWebhooks>;

function typeOf(body: string): string | null {
  try {
    const parsed = JSON.parse(body) as { type?: unknown };
    return typeof parsed.type === 'string' ? parsed.type : null;
  } catch {
    return null;
  }
}

/** The kept stream records, with their error and the button that replays them. */
function failuresSection(failures: readonly KeptStreamRecord[]): string {
  if (failures.length === 0) return '<p>No stream record is kept: every change became its events.</p>';
  const rows = failures
    .map(
      (f) => `<tr>
  <td>${escapeHtml(f.kept_at)}</td><td>${escapeHtml(f.kind)}</td><td><code>${escapeHtml(f.record.eventID ?? '')}</code></td>
  <td>${escapeHtml(f.record.eventName ?? '')}</td><td>${escapeHtml(f.error)}</td>
  <td><details><summary>record</summary><pre>${escapeHtml(JSON.stringify(f.record, null, 2))}</pre></details></td>
</tr>`,
    )
    .join('\n');
  return `<p><strong>${failures.length} stream record(s) kept</strong>: changes that did not become events (the stream failures queue of a deployment). Replay them once the cause is removed.</p>
<form method="post" action="${REPLAY_PATH}"><button type="submit">Replay into webhook-events</button></form>
<table><thead><tr><th>kept</th><th>kind</th><th>eventID</th><th>change</th><th>error</th><th></th></tr></thead>
<tbody>
${rows}
</tbody></table>`;
}

/** The page: what arrived, newest first, refreshed every few seconds; then the kept stream records. */
function page(arrived: readonly ArrivedDelivery[], failures: readonly KeptStreamRecord[]): string {
  const rows = arrived
    .map(
      (d) => `<tr>
  <td>${escapeHtml(d.received_at)}</td><td>${escapeHtml(d.path)}</td><td>${escapeHtml(d.type ?? '?')}</td>
  <td><code>${escapeHtml(d.webhook_id ?? '')}</code></td>
  <td>${d.verified ? '✔ verified' : `✘ ${escapeHtml(d.verify_error ?? 'not verified')}`}</td><td>${d.answered}</td>
  <td><details><summary>body</summary><pre>${escapeHtml(pretty(d.body))}</pre></details></td>
</tr>`,
    )
    .join('\n');
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta http-equiv="refresh" content="3">
<title>Webhooks received (local)</title>
<style>body{font:14px system-ui,sans-serif;margin:1.5rem}table{border-collapse:collapse;width:100%}
td,th{border-bottom:1px solid #ddd;padding:.3rem .5rem;text-align:left;vertical-align:top}pre{white-space:pre-wrap;margin:0}</style>
</head><body>
<h1>Webhooks received by this local run</h1>
<p>Register <code>/dev/webhooks/&lt;any name&gt;</code> on this server as an endpoint (add <code>?status=503</code> to answer that instead of 204).
Each delivery is verified with the <code>standardwebhooks</code> library and the secret of the endpoint registered at its URL. The last ${KEPT} are kept; this page refreshes itself.</p>
<table><thead><tr><th>received</th><th>path</th><th>type</th><th>webhook-id</th><th>signature</th><th>answered</th><th></th></tr></thead>
<tbody>
${rows || '<tr><td colspan="7">Nothing yet.</td></tr>'}
</tbody></table>
<h2>Stream records kept</h2>
${failuresSection(failures)}
</body></html>`;
}

function pretty(body: string): string {
  try {
    return JSON.stringify(JSON.parse(body), null, 2);
  } catch {
    return body;
  }
}
