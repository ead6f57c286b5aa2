/**
 * The benchmark's own local stack: the whole service (embedded DynamoDB in a temporary folder,
 * seed, development identity provider, local front on a free port) started in this process, a key whose limits the
 * run never meets, bearer tokens of the seeded admins, a raw document client for the baselines,
 * and the service's request log lines captured (their `duration_ms` is the handler time that
 * Lambda would bill) instead of printed. Nothing outlives the run.
 */
import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { protectDataDir, startLocalService, type LocalService } from '../../infra/local/service.js';
import { generateRawKey, newKeyRecord } from '../../shared/keys/api-keys.js';
import { IdAllocator } from '../../shared/platform/ids.js';
import type { ApiKeyRecord } from '../../shared/keys/model.js';
import { REQUEST_ANSWERED } from '../../shared/platform/observability.js';
import { documentClient } from '../../infra/local/dynamo.js';
import { startDynamoProcess } from './dynamo-process.js';
import { BenchHttp } from './http.js';

/** Limits no run reaches (the demo key allows 60 calls a minute). */
const UNLIMITED = { rate_limit_per_minute: 100_000, rate_limit_per_day: 100_000_000 } as const;

/** Handler durations from the service's request log lines, by the benchmark's operation name. */
export class RequestLog {
  /** Lines kept per operation; parsed only when asked, so a measured request pays no parsing. */
  private readonly lines = new Map<string, string[]>();
  /** The last error lines of the service (printed when the run fails). */
  errors: string[] = [];
  /** The operation whose request is being measured, if any: its log lines are kept. */
  collecting: string | undefined;

  /** Take one log line of the service; true when it was one (it is then not printed). */
  take(line: string): boolean {
    // Metric (EMF) lines are the service's too: ingested like the log lines, so counted in the volume.
    if (!line.startsWith('{"level"') && !line.startsWith('{"_aws"')) return false;
    if (line.startsWith('{"level":"ERROR"')) this.errors = [...this.errors.slice(-9), line];
    if (this.collecting !== undefined) {
      const kept = this.lines.get(this.collecting) ?? [];
      kept.push(line);
      this.lines.set(this.collecting, kept);
    }
    return true;
  }

  /** Bytes (with their newlines) and number of request records of the lines kept for an operation. */
  volume(name: string): { bytes: number; requests: number } {
    const lines = this.lines.get(name) ?? [];
    const bytes = lines.reduce((sum, line) => sum + Buffer.byteLength(line.endsWith('\n') ? line : `${line}\n`), 0);
    return { bytes, requests: this.of(name).length };
  }

  /** The `duration_ms` of the request log lines kept for an operation. */
  of(name: string): number[] {
    const out: number[] = [];
    for (const line of this.lines.get(name) ?? []) {
      try {
        const entry = JSON.parse(line) as { message?: string; duration_ms?: number };
        if (entry.message === REQUEST_ANSWERED && typeof entry.duration_ms === 'number') out.push(entry.duration_ms);
      } catch {
        // a partial line: not a request record
      }
    }
    return out;
  }
}

/** What every phase of the benchmark uses. */
export interface BenchStack {
  readonly service: LocalService;
  readonly http: BenchHttp;
  /** The raw API key (org 1, business tier, unscoped, unlimited, MCP session scope). */
  readonly apiKey: string;
  readonly keyRecord: ApiKeyRecord;
  /** `Bearer ...` of the seeded admins of org 1 (acme) and org 2 (globex). */
  readonly bearer: { readonly acme: string; readonly globex: string };
  /** A client of the embedded DynamoDB built exactly like the service's, for the raw baselines. */
  readonly raw: DynamoDBDocumentClient;
  readonly log: RequestLog;
  close(): Promise<void>;
}

/** A business key of org 1 with no practical limit and the given MCP scopes, stored as the admin API would. */
export async function createBenchKey(
  s: LocalService['services'],
  name: string,
  mcpScopes: ApiKeyRecord['mcp_scopes'],
): Promise<{ raw: string; record: ApiKeyRecord }> {
  const raw = generateRawKey();
  const id = await new IdAllocator(s.stores.sequences, { sequence: 'key_id', blockSize: 1 }).nextId();
  const record = newKeyRecord(raw, id, { org_id: 1, tier: 'business' }, { name, ...UNLIMITED, mcp_scopes: mcpScopes }, s.clock.now());
  await s.stores.keys.create(record);
  return { raw, record };
}

/** Start the stack; log lines of the service are routed to the returned {@link RequestLog}. */
export async function startBenchStack(): Promise<BenchStack> {
  const log = new RequestLog();
  const restore = captureServiceLogs(log);
  const dataDir = mkdtempSync(join(tmpdir(), 'gsts-bench-'));
  // What has started, stopped in reverse order when the start fails or the stack closes.
  const stops: (() => unknown)[] = [() => rmSync(dataDir, { recursive: true, force: true }), restore];
  const stopAll = async () => {
    for (const stop of stops.splice(0).reverse()) await stop();
  };
  try {
    // Closed before its database starts, which inherits the umask: no file of it is ever readable by others.
    protectDataDir(dataDir);
    // DynamoDB (dynalite, or DynamoDB Local) runs in a process of its own, as it runs on its own machines in AWS.
    const dynamo = await startDynamoProcess(join(dataDir, 'dynamodb'));
    stops.push(() => dynamo.close());
    // The TTL sweeper must not add calls to a measured request.
    const runningDynamo = { connection: dynamo.connection, backend: dynamo.backend };
    // Its request phases record every DynamoDB call of the service's client: no workers beside them (the webhook phase starts its own stack).
    const service = await startLocalService({ port: 0, dataDir, sweepIntervalMs: 3_600_000, runningDynamo, workers: false });
    stops.push(() => service.close());
    const s = service.services;
    const { raw: apiKey, record: keyRecord } = await createBenchKey(s, 'bench', ['mcp:sessions:write']);
    const [acme, globex] = await Promise.all([service.issuer.sign('acme-admin'), service.issuer.sign('globex-admin')]);
    const http = new BenchHttp(service.baseUrl);
    stops.push(() => http.close());
    const raw = documentClient(service.dynamoConnection);
    stops.push(() => raw.destroy());
    return {
      service,
      http,
      apiKey,
      keyRecord,
      bearer: { acme: `Bearer ${acme}`, globex: `Bearer ${globex}` },
      raw,
      log,
      close: stopAll,
    };
  } catch (error) {
    await stopAll();
    throw error;
  }
}

/** Route the service's JSON log lines (stdout and stderr) to `log`; everything else still prints. */
function captureServiceLogs(log: RequestLog): () => void {
  const originals = [process.stdout, process.stderr].map((stream) => {
    const write = stream.write.bind(stream);
    stream.write = ((chunk: string | Uint8Array, ...rest: unknown[]) => {
      const text = typeof chunk === 'string' ? chunk : Buffer.from(chunk).toString('utf8');
      if (log.take(text)) {
        (rest.find((r) => typeof r === 'function') as (() => void) | undefined)?.();
        return true;
      }
      return (write as (...args: unknown[]) => boolean)(chunk, ...rest);
    }) as typeof stream.write;
    return () => {
      stream.write = write as typeof stream.write;
    };
  });
  return () => originals.forEach((undo) => undo());
}
