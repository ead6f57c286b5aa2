/**
 * `/dev/webhooks`: a webhook receiver on the local front, for trying deliveries without a server of
 * one's own (local runs only: the deployed stack has no such path). Register
 * `<baseUrl>/dev/webhooks/<any name>` as an endpoint (the start guide prints the line), with the
 * front's host as `localhost` or `127.0.0.1`; every delivery that arrives is kept (the last
 * {@link KEPT} of them) and checked as a partner would check it: with the stock `standardwebhooks`
 * library and the secret of the endpoint registered at that URL (under either host name).
 *
 * `GET /dev/webhooks` shows them, newest first (`?format=json`: the same as JSON, for scripts and
 * tests), but only what anyone who reaches the front may see: each delivery's metadata (when, path,
 * type, id, verified, answer). Bodies (tokens, player ids, metadata) and signatures are an
 * organization's: `?format=json&org_id=<org>` with an `Authorization: Bearer` token of that org's
 * owner or admin (the local identity provider's, `npm run token`) lists that org's verified
 * deliveries with them, as list-webhook-deliveries would authorize it. The front listens on
 * 127.0.0.1, which every user of the machine (and a page's DNS-rebinding trick) can reach; the
 * local data is the service's only (docs/decisions.md, "Local data").
 *
 * The page and its JSON (`failures`) also list the stream records kept in the local failures list
 * (`stream-failures.ts`: what the events worker could not turn into events), which
 * `POST /dev/webhooks/failures/replay` hands to the worker again
 * (docs/runbook.md#webhook-records-unreadable). They are the developer's own run's records, shown
 * whole so that a broken one can be read and fixed.
 *
 * The answer is 204, or the status named by `?status=` in the registered URL (e.g.
 * `/dev/webhooks/flaky?status=503`), so retries, a 410's disabling and the deliveries list can be
 * watched locally too.
 */
import { ScanCommand, type DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { Webhook } from 'standardwebhooks';
import { InvalidInput } from '../../shared/platform/errors.js';
import { errorResponse } from '../../shared/platform/http/answers.js';
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
  /** The organization of the endpoint whose secret verified it; null when none did. */
  readonly org_id: number | null;
  /** Why not, when it did not. */
  readonly verify_error: string | null;
  /** What the receiver answered. */
  readonly answered: number;
}

/** What anyone reaching the front sees of a delivery: no body, no signature, no organization. */
type ArrivalMetadata = Pick<ArrivedDelivery, 'received_at' | 'path' | 'webhook_id' | 'type' | 'verified' | 'verify_error' | 'answered'>;

/** What the receiver needs to find an endpoint's secret, and to authorize a reader of an org's bodies. */
export interface DevWebhooksOptions {
  readonly baseUrl: () => string;
  readonly client: () => DynamoDBDocumentClient;
  readonly catalogTable: () => string;
  /**
   * Whether the `Authorization` header is an owner's or admin's of `orgId` (as the service checks
   * list-webhook-deliveries). @throws Unauthenticated, Forbidden
   */
  readonly authorize: (authorization: string | undefined, orgId: number) => Promise<void>;
  /** The local failures list (once the workers run). */
  readonly failures: () => LocalStreamFailures | undefined;
}

/** The receiver and its memory of what arrived. */
export function devWebhooks(options: DevWebhooksOptions) {
  const arrived: ArrivedDelivery[] = [];

  /**
   * The secrets (with their org) of the endpoints registered at the front's `pathAndQuery`, its host
   * written `localhost` or `127.0.0.1` (several orgs may register the same URL).
   */
  async function secretsFor(pathAndQuery: string): Promise<{ readonly orgId: number; readonly secret: string }[]> {
    const base = new URL(options.baseUrl());
    const [byName, byAddress] = ['localhost', '127.0.0.1'].map((host) => `${base.protocol}//${host}:${base.port}${pathAndQuery}`);
    const { Items = [] } = await options.client().send(
      new ScanCommand({
        TableName: options.catalogTable(),
        FilterExpression: 'begins_with(sk, :prefix) AND #url IN (:byName, :byAddress)',
        ExpressionAttributeNames: { '#url': 'url' },
        ExpressionAttributeValues: { ':prefix': 'WEBHOOK#', ':byName': byName, ':byAddress': byAddress },
      }),
    );
    const sealer = secretSealer();
    return Items.flatMap((item) => {
      const orgId = item.org_id as number;
      const context = sealingContext(orgId, item.id as number);
      const sealed = [item.secret_sealed, item.previous_secret_sealed].filter((s): s is string => typeof s === 'string');
      return sealed.map((value) => ({ orgId, secret: sealer.open(value, context) }));
    });
  }

  /** GET /dev/webhooks: metadata for anyone; an org's deliveries with their bodies for its owners and admins. */
  async function show(req: IncomingMessage, res: ServerResponse, url: URL): Promise<void> {
    const json = url.searchParams.get('format') === 'json';
    const org = url.searchParams.get('org_id');
    if (org === null) {
      const listed = arrived.map(metadata);
      const failures = options.failures()?.list() ?? [];
      if (json) res.writeHead(200, JSON_HEADERS).end(JSON.stringify({ deliveries: listed, failures }));
      else
        res
          .writeHead(200, { 'content-type': 'text/html; charset=utf-8', 'cache-control': 'no-store' })
          .end(page(listed, failures, options.baseUrl()));
      return;
    }
    const orgId = Number(org);
    try {
      if (!json) throw new InvalidInput('org_id: an organization’s bodies are answered as JSON only (format=json)', { param: 'format' });
      if (!Number.isInteger(orgId) || orgId < 1) throw new InvalidInput('org_id: must be a positive integer', { param: 'org_id' });
      await options.authorize(req.headers.authorization, orgId);
    } catch (error) {
      const refused = errorResponse(error);
      res.writeHead(refused.statusCode ?? 500, refused.headers as Record<string, string>).end(refused.body);
      return;
    }
    res.writeHead(200, JSON_HEADERS).end(JSON.stringify({ deliveries: arrived.filter((d) => d.org_id === orgId) }));
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
    const secrets = await secretsFor(url.pathname + url.search);
    let verify_error: string | null = secrets.length === 0 ? 'no endpoint is registered at this URL' : null;
    let verified = false;
    let org_id: number | null = null;
    for (const { orgId, secret } of secrets) {
      try {
        new Webhook(secret).verify(text, headers);
        verified = true;
        verify_error = null;
        org_id = orgId;
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
      org_id,
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
      res.writeHead(409, JSON_HEADERS).end(JSON.stringify({ error: 'the workers are not running' }));
      return;
    }
    const outcome = await failures.replay();
    if (req.headers['content-type']?.startsWith('application/x-www-form-urlencoded')) {
      res.writeHead(303, { location: DEV_WEBHOOKS_PATH }).end();
    } else {
      res.writeHead(200, JSON_HEADERS).end(JSON.stringify(outcome));
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
      if (req.method === 'POST' && url.pathname === REPLAY_PATH) {
        await replay(req, res);
      } else if (req.method === 'POST' && url.pathname.startsWith(`${DEV_WEBHOOKS_PATH}/`)) {
        await receive(req, res, url, body);
      } else if (req.method === 'GET' && url.pathname === DEV_WEBHOOKS_PATH) {
        await show(req, res, url);
      } else {
        res.writeHead(405, { allow: url.pathname === DEV_WEBHOOKS_PATH ? 'GET' : 'POST' }).end();
      }
      return true;
    },
  };
}

/** The receiver's type. */
export type DevWebhooks = ReturnType<typeof devWebhooks>;

const JSON_HEADERS = { 'content-type': 'application/json; charset=utf-8', 'cache-control': 'no-store' };

/** A delivery as anyone reaching the front sees it. */
function metadata(d: ArrivedDelivery): ArrivalMetadata {
  const { received_at, path, webhook_id, type, verified, verify_error, answered } = d;
  return { received_at, path, webhook_id, type, verified, verify_error, answered };
}

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

/** The page: what arrived, newest first, refreshed every few seconds, without bodies (see the module comment); then the kept stream records. */
function page(arrived: readonly ArrivalMetadata[], failures: readonly KeptStreamRecord[], baseUrl: string): string {
  const rows = arrived
    .map(
      (d) => `<tr>
  <td>${escapeHtml(d.received_at)}</td><td>${escapeHtml(d.path)}</td><td>${escapeHtml(d.type ?? '?')}</td>
  <td><code>${escapeHtml(d.webhook_id ?? '')}</code></td>
  <td>${d.verified ? '✔ verified' : `✘ ${escapeHtml(d.verify_error ?? 'not verified')}`}</td><td>${d.answered}</td>
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
<p>Bodies and signatures are shown to the organization's owners and admins only:
<code>curl -s '${escapeHtml(baseUrl)}${DEV_WEBHOOKS_PATH}?format=json&amp;org_id=1' -H "Authorization: Bearer $(npm run -s token -- acme-admin)"</code></p>
<table><thead><tr><th>received</th><th>path</th><th>type</th><th>webhook-id</th><th>signature</th><th>answered</th></tr></thead>
<tbody>
${rows || '<tr><td colspan="6">Nothing yet.</td></tr>'}
</tbody></table>
<h2>Stream records kept</h2>
${failuresSection(failures)}
</body></html>`;
}
