/**
 * The bench's DynamoDB proxy: an HTTP server on 127.0.0.1 that forwards the DynamoDB JSON protocol
 * (`X-Amz-Target: DynamoDB_20120810.<Operation>`) to the embedded DynamoDB and, once
 * {@link DynamoProxy.configure} gives it partitions, enforces DynamoDB's per-partition throughput
 * (./partitions.ts): a call whose partition bucket is empty is refused as DynamoDB refuses it, and
 * counted per table/index and operation. (The modelled round trip of the latency mode is an SDK
 * middleware, ../rtt-latency.ts: it must cover the client's own work too.)
 */
import { createServer, request, Agent, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { performance } from 'node:perf_hooks';
import { crc32 } from 'node:zlib';
import { requestTarget, type DynamoConnection } from '../../../infra/local/dynamo.js';
import { Partitions, type PartitionModel } from './partitions.js';
import { charges, needsImage, type CallContext, type WireItem } from './wire-units.js';

/** What the proxy does to each call. */
export interface ProxySettings {
  /** Per-partition throughput; absent: unlimited. */
  readonly partitions?: PartitionModel;
}

interface Answer {
  readonly status: number;
  readonly headers: IncomingHttpHeaders;
  readonly body: Buffer;
}

/** A running proxy. */
export class DynamoProxy {
  private settings: ProxySettings = {};
  private partitions: Partitions | undefined;
  private readonly indexPartitions = new Map<string, Record<string, string>>();
  private readonly agent = new Agent({ keepAlive: true, maxSockets: 128 });
  /** Throttled calls by `table[/index] Operation` since the last {@link configure}. */
  readonly throttled = new Map<string, number>();
  /** Calls forwarded since the last {@link configure}. */
  calls = 0;

  private constructor(
    private readonly upstream: DynamoConnection,
    private readonly server: Server,
  ) {}

  /** Start a proxy of the DynamoDB `upstream` on a free loopback port (the benchmark's own network). */
  static async start(upstream: DynamoConnection): Promise<DynamoProxy> {
    const ready: { proxy?: DynamoProxy } = {};
    const server = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        void ready.proxy!.handle(req.headers, Buffer.concat(chunks)).then(
          (a) => res.writeHead(a.status, a.headers).end(a.body),
          (error: unknown) => res.writeHead(500).end(String(error)),
        );
      });
    });
    server.keepAliveTimeout = 60_000;
    await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
    ready.proxy = new DynamoProxy(upstream, server);
    return ready.proxy;
  }

  /** The endpoint to give a DynamoDB client. */
  get endpoint(): string {
    return `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
  }

  /** How a client reaches the upstream through the proxy: its endpoint, the upstream's region and credentials. */
  get connection(): DynamoConnection {
    const { region, credentials } = this.upstream;
    return { endpoint: this.endpoint, region, credentials };
  }

  /** New settings; buckets start full and the counters at zero. */
  configure(settings: ProxySettings): void {
    this.settings = settings;
    this.partitions = settings.partitions ? new Partitions(settings.partitions, performance.now()) : undefined;
    this.indexPartitions.clear();
    this.throttled.clear();
    this.calls = 0;
  }

  /** Total throttled calls whose label matches. */
  throttledWhere(match: (label: string) => boolean = () => true): number {
    return [...this.throttled].reduce((sum, [label, n]) => sum + (match(label) ? n : 0), 0);
  }

  async close(): Promise<void> {
    this.agent.destroy();
    this.server.closeAllConnections();
    await new Promise<void>((done) => this.server.close(() => done()));
  }

  private handle(headers: IncomingHttpHeaders, body: Buffer): Promise<Answer> {
    return this.answer(headers, body, performance.now());
  }

  private async answer(headers: IncomingHttpHeaders, body: Buffer, arrived: number): Promise<Answer> {
    const partitions = this.partitions;
    if (!partitions) return this.forward(headers, body);
    const op = String(headers['x-amz-target'] ?? '').split('.')[1] ?? '';
    const input = JSON.parse(body.toString('utf8') || '{}') as Record<string, unknown>;
    const ctx: CallContext = { indexPartitions: this.indexPartitions };
    const refused = partitions.refusal(charges(op, input, undefined, ctx), arrived);
    if (refused) {
      const label = `${refused.resource} ${op}`;
      this.throttled.set(label, (this.throttled.get(label) ?? 0) + 1);
      return throttlingAnswer(refused.resource, refused.kind);
    }
    this.calls++;
    const answer = await this.forward(headers, body);
    let output: Record<string, unknown> | undefined;
    if (answer.status === 200) output = JSON.parse(answer.body.toString('utf8') || '{}') as Record<string, unknown>;
    // A refused conditional write is charged as a write of its key (at least one unit), as DynamoDB does.
    const after = output && needsImage(op, input) ? await this.image(headers, input) : undefined;
    partitions.charge(charges(op, input, output ?? {}, { ...ctx, after }), performance.now());
    return answer;
  }

  /** The item an UpdateItem left (read from the emulator directly, not charged). */
  private async image(headers: IncomingHttpHeaders, input: Record<string, unknown>): Promise<WireItem | undefined> {
    const body = Buffer.from(JSON.stringify({ TableName: input.TableName, Key: input.Key, ConsistentRead: true }));
    const a = await this.forward({ ...headers, 'x-amz-target': 'DynamoDB_20120810.GetItem' }, body);
    return (JSON.parse(a.body.toString('utf8')) as { Item?: WireItem }).Item;
  }

  private forward(headers: IncomingHttpHeaders, body: Buffer): Promise<Answer> {
    const { host: _host, connection: _connection, ...rest } = headers;
    return new Promise((resolve, reject) => {
      const r = request(
        {
          agent: this.agent,
          ...requestTarget(this.upstream),
          method: 'POST',
          path: '/',
          headers: { ...rest, 'content-length': String(body.length) },
        },
        (res) => {
          const chunks: Buffer[] = [];
          res.on('data', (c: Buffer) => chunks.push(c));
          res.on('end', () => resolve({ status: res.statusCode ?? 500, headers: res.headers, body: Buffer.concat(chunks) }));
          res.on('error', reject);
        },
      );
      r.on('error', reject);
      r.end(body);
    });
  }
}

/**
 * DynamoDB's answer to a call over a partition's throughput, in both capacity modes: HTTP 400,
 * `ProvisionedThroughputExceededException` with a `KeyRangeThroughputExceeded` throttling reason
 * (AWS DynamoDB API reference, ThrottlingReason; `ThrottlingException` is its answer to control-plane
 * rate limits, and on-demand tables answer it for a configured maximum throughput, not for a hot key).
 */
function throttlingAnswer(resource: string, kind: 'read' | 'write'): Answer {
  const [table, indexName] = resource.split('/');
  const reason = `${indexName ? 'Index' : 'Table'}${kind === 'read' ? 'Read' : 'Write'}KeyRangeThroughputExceeded`;
  const arn = `arn:aws:dynamodb:local:000000000000:table/${table}${indexName ? `/index/${indexName}` : ''}`;
  const body = Buffer.from(
    JSON.stringify({
      __type: 'com.amazonaws.dynamodb.v20120810#ProvisionedThroughputExceededException',
      message:
        'The level of configured provisioned throughput for the table was exceeded. Consider increasing your provisioning level with the UpdateTable API.',
      ThrottlingReasons: [{ reason, resource: arn }],
    }),
  );
  return {
    status: 400,
    headers: {
      'content-type': 'application/x-amz-json-1.0',
      'content-length': String(body.length),
      'x-amzn-requestid': Math.random().toString(36).slice(2).toUpperCase().padEnd(52, '0').slice(0, 52),
      'x-amz-crc32': String(crc32(body)),
    },
    body,
  };
}
