/**
 * A partner's webhook receiver for the invariant tests: a server on 127.0.0.1 with one path per
 * endpoint, that keeps every request it gets and checks each as a partner does, with the stock
 * `standardwebhooks` library and the secret of the endpoint at that path. Its timestamp window (5
 * minutes) is judged against the stack's clock, which the tests move through expiries and the retry
 * schedule (the library judges it against the wall clock).
 *
 * A fault plan may make some attempts fail: answered 500, the connection dropped without an answer,
 * or held past the sender's 15-second limit. The plan is decided per delivery id (`webhook-id`),
 * so a delivery fails its first attempts and succeeds at a later one, as a partner's flaky server does.
 */
import { createServer, type IncomingHttpHeaders, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Webhook } from 'standardwebhooks';

/** How an attempt is answered: 204, 500, the socket dropped, or held until the sender gives up. */
export type Answer = 'ok' | 'error' | 'drop' | 'hang';

/** The answers of one delivery's attempts, first to last; attempts past the list are answered `ok`. */
type FaultPlan = (webhookId: string) => readonly Answer[];

/** One request the receiver got. */
export interface Arrival {
  /** The endpoint's name (the path's first segment). */
  readonly endpoint: string;
  readonly webhookId: string;
  readonly body: string;
  readonly event: { readonly type: string; readonly timestamp: string; readonly data: Record<string, unknown> } | undefined;
  /** Whether the stock library verified the signature with the endpoint's secret. */
  readonly verified: boolean;
  readonly verifyError: string | undefined;
  readonly answer: Answer;
}

/**
 * The library's check of the signature, with its timestamp window (5 minutes) judged at `nowMs`
 * instead of the wall clock: its own `verifyTimestamp` (private in its types) replaced on the instance.
 */
function clockedWebhook(secret: string, nowMs: () => number): Webhook {
  const webhook = new Webhook(secret);
  (webhook as unknown as { verifyTimestamp: (header: string) => Date }).verifyTimestamp = (header) => {
    const seconds = Number.parseInt(header, 10);
    const now = Math.floor(nowMs() / 1000);
    if (Number.isNaN(seconds) || Math.abs(now - seconds) > 5 * 60) throw new Error(`timestamp ${header} is not within 5 minutes of ${now}`);
    return new Date(seconds * 1000);
  };
  return webhook;
}

/** See the module comment. */
export class WebhookReceiver {
  readonly arrivals: Arrival[] = [];
  private readonly secrets = new Map<string, string>();
  private readonly attemptsSeen = new Map<string, number>();
  private readonly held = new Set<ServerResponse>();
  private server: Server | undefined;
  private port = 0;
  /** The plan for the attempts that follow (none: every attempt answered 204). */
  plan: FaultPlan = () => [];

  constructor(private readonly nowMs: () => number) {}

  async start(): Promise<void> {
    this.server = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (chunk: Buffer) => chunks.push(chunk));
      req.on('end', () => this.receive(req.url ?? '', req.headers, Buffer.concat(chunks).toString('utf8'), res));
    });
    // Held answers end with the server; the sender has given up on them by then.
    this.server.keepAliveTimeout = 1_000;
    await new Promise<void>((done) => this.server!.listen(0, '127.0.0.1', done));
    this.port = (this.server.address() as AddressInfo).port;
  }

  /** The URL of an endpoint's path. */
  url(endpoint: string): string {
    return `http://127.0.0.1:${this.port}/${endpoint}`;
  }

  /** Check what arrives at `endpoint` with this secret (the one create-webhook answered). */
  expect(endpoint: string, secret: string): void {
    this.secrets.set(endpoint, secret);
  }

  private receive(path: string, headers: IncomingHttpHeaders, body: string, res: ServerResponse): void {
    const endpoint = path.split('/')[1]?.split('?')[0] ?? '';
    const header = (name: string) => (typeof headers[name] === 'string' ? headers[name] : '');
    const webhookId = header('webhook-id');
    const secret = this.secrets.get(endpoint);
    let verifyError: string | undefined = secret === undefined ? `no endpoint expected at /${endpoint}` : undefined;
    let event: Arrival['event'];
    if (secret !== undefined) {
      try {
        event = clockedWebhook(secret, this.nowMs).verify(body, {
          'webhook-id': webhookId,
          'webhook-timestamp': header('webhook-timestamp'),
          'webhook-signature': header('webhook-signature'),
        }) as Arrival['event'];
      } catch (error) {
        verifyError = (error as Error).message;
      }
    }
    const attempt = this.attemptsSeen.get(webhookId) ?? 0;
    this.attemptsSeen.set(webhookId, attempt + 1);
    const answer = this.plan(webhookId)[attempt] ?? 'ok';
    this.arrivals.push({
      endpoint,
      webhookId,
      body,
      event: event ?? parsed(body),
      verified: verifyError === undefined,
      verifyError,
      answer,
    });
    if (answer === 'ok') res.writeHead(204).end();
    else if (answer === 'error') res.writeHead(500).end('down');
    else if (answer === 'drop') res.socket?.destroy();
    else this.held.add(res);
  }

  async stop(): Promise<void> {
    for (const res of this.held) res.socket?.destroy();
    this.server?.closeAllConnections();
    await new Promise((done) => (this.server ? this.server.close(done) : done(undefined)));
  }
}

function parsed(body: string): Arrival['event'] {
  try {
    return JSON.parse(body) as Arrival['event'];
  } catch {
    return undefined;
  }
}
