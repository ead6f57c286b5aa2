/**
 * A small HTTP client for the benchmark: node:http over one keep-alive agent, so a measured request
 * pays for the service and the local front, not for connection set-up or a heavy client.
 */
import { Agent, request } from 'node:http';

/** What the benchmark needs of a response. */
export interface BenchResponse {
  readonly status: number;
  readonly headers: Readonly<Record<string, string | string[] | undefined>>;
  readonly body: string;
}

/** One request's description. */
export interface BenchRequest {
  readonly method: 'GET' | 'POST' | 'PATCH' | 'DELETE';
  readonly path: string;
  readonly headers?: Record<string, string>;
  /** A JSON body (serialized here) or a string. */
  readonly body?: unknown;
}

/** Requests against one base URL over kept-alive connections. */
export class BenchHttp {
  private readonly agent = new Agent({ keepAlive: true, maxSockets: 64 });
  private readonly url: URL;

  constructor(baseUrl: string) {
    this.url = new URL(baseUrl);
  }

  send(req: BenchRequest): Promise<BenchResponse> {
    const body = req.body === undefined ? undefined : typeof req.body === 'string' ? req.body : JSON.stringify(req.body);
    const headers: Record<string, string> = { ...req.headers };
    if (body !== undefined) {
      headers['content-type'] ??= 'application/json';
      headers['content-length'] = String(Buffer.byteLength(body));
    }
    return new Promise((resolve, reject) => {
      const r = request(
        { agent: this.agent, host: this.url.hostname, port: this.url.port, method: req.method, path: req.path, headers },
        (res) => {
          const chunks: Buffer[] = [];
          res.on('data', (c: Buffer) => chunks.push(c));
          res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks).toString('utf8') }));
          res.on('error', reject);
        },
      );
      r.on('error', reject);
      r.end(body);
    });
  }

  close(): void {
    this.agent.destroy();
  }
}
