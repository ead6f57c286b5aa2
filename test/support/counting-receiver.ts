/**
 * A webhook receiver for the load tests: an HTTP server on 127.0.0.1 that keeps, for each request,
 * its path, `webhook-id` and the event's type and token, and answers 204, or, for a path given to
 * {@link CountingReceiver.holdUnder}, only when the test releases it (a slow receiver). Unlike the
 * dev receiver it keeps every arrival and reads nothing per request.
 */
import { createServer, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/** One request that arrived. */
export interface Arrival {
  readonly path: string;
  readonly webhookId: string;
  readonly type: string;
  /** `data.token` of a session event. */
  readonly token: string | undefined;
}

/** See the module comment. */
export class CountingReceiver {
  readonly arrivals: Arrival[] = [];
  private readonly held: ServerResponse[] = [];
  private holding: string | undefined;
  private server!: Server;
  private port = 0;

  async start(): Promise<void> {
    this.server = createServer((req, res) => {
      let body = '';
      req.on('data', (chunk: Buffer) => (body += chunk.toString('utf8')));
      req.on('end', () => {
        const path = req.url ?? '';
        const event = JSON.parse(body) as { type: string; data: { token?: string } };
        this.arrivals.push({ path, webhookId: String(req.headers['webhook-id']), type: event.type, token: event.data.token });
        if (this.holding !== undefined && path.startsWith(this.holding)) this.held.push(res);
        else res.writeHead(204).end();
      });
    });
    await new Promise<void>((done) => this.server.listen(0, '127.0.0.1', done));
    this.port = (this.server.address() as AddressInfo).port;
  }

  url(path: string): string {
    return `http://127.0.0.1:${this.port}${path}`;
  }

  /** The arrivals at `path`. */
  at(path: string): Arrival[] {
    return this.arrivals.filter((a) => a.path === path);
  }

  /** Hold every request to a path under `prefix` until {@link release}. */
  holdUnder(prefix: string): void {
    this.holding = prefix;
  }

  /** Answer every held request 204 and hold no more. */
  release(): void {
    this.holding = undefined;
    for (const res of this.held.splice(0)) res.writeHead(204).end();
  }

  async stop(): Promise<void> {
    this.release();
    this.server.closeAllConnections();
    await new Promise((done) => this.server.close(done));
  }
}
