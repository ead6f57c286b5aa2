/**
 * Integration-test harness: the whole local service (embedded DynamoDB on disk in a temp folder,
 * seed, development identity provider, local front on a free port) with a clock the test can move, and every log line
 * the service writes captured instead of printed. When a stack stops, its captured log lines and
 * its data folder are checked against every secret its tests handled (`secrets.ts`): a leak fails
 * the test file.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { lookup as systemLookup } from 'node:dns/promises';
import type { HostLookup } from '../../shared/platform/services.js';
import type { Clock } from '../../shared/platform/time.js';
import type { LocalDeliveryQueue } from '../../infra/local/delivery-queue.js';
import { startLocalService, type LocalService } from '../../infra/local/service.js';
import type { DeliveryMessage } from '../../shared/webhooks/delivery-model.js';
import { addFigures } from './figures.js';
import { SecretLedger } from './secrets.js';

/** A clock that follows wall time plus an offset the test controls. */
export class TestClock implements Clock {
  offsetMs = 0;
  now(): number {
    return Date.now() + this.offsetMs;
  }
  advance(ms: number): void {
    this.offsetMs += ms;
  }
}

/** Log lines written to stdout/stderr while a stack runs. */
export const capturedLogs: string[] = [];

/** A running stack plus helpers for calling it. */
export interface Stack extends LocalService {
  readonly clock: TestClock;
  readonly dataDir: string;
  /** Every secret this stack's tests handled; requests through {@link request} are noted by themselves. */
  readonly secrets: SecretLedger;
  /** `fetch` relative to the base URL. */
  request(path: string, init?: RequestInit): Promise<{ status: number; headers: Headers; body: any }>;
  /**
   * `workers.settle()`, then the clock moved through each wait an endpoint's pacing put a delivery
   * to (a burst beyond its places: shared/webhooks/deliver.ts `busyWaitMs`), settling after each:
   * resolves once every delivery the writes so far caused has had its attempt, whatever the machine's
   * load bunched together. Retries on the attempt schedule are left to wait for their time.
   * @throws when deliveries are still paced after {@link PACED_TURNS} turns
   */
  settleDeliveries(): Promise<void>;
  /** POST JSON to `/api/org-api-keys?action=<action>`. */
  post(action: string, body: unknown, headers?: Record<string, string>): Promise<{ status: number; headers: Headers; body: any }>;
  stop(): Promise<void>;
}

/**
 * Turns of an endpoint's pacing {@link Stack.settleDeliveries} follows: each frees every place (the
 * clock moves a second or more, a place's hold is 100 ms), so at least 5 more deliveries per endpoint:
 * a recovery's 1,000 to one endpoint at most in 200 turns.
 */
const PACED_TURNS = 200;

/** When the soonest delivery message an endpoint's pacing put off is due (epoch ms on the queue's clock); undefined when none is. */
function nextPacedAt(queue: LocalDeliveryQueue): number | undefined {
  return queue.pending().find((m) => (JSON.parse(m.body) as Partial<DeliveryMessage>).waits !== undefined)?.dueMs;
}

/** A public address (outside every range `addresses.ts` refuses) that names under `.example` resolve to. */
const PUBLIC_TEST_ADDRESS = '93.184.215.14';

/**
 * The stacks' resolver of webhook hosts: `vm` is this machine (127.0.0.1, as a VM's or container's
 * name for its host can be), names under `.example` (RFC 2606: never real) a public address, names
 * under `.invalid` no such host, any other name the system's answer.
 */
const testLookup: HostLookup = async (hostname) => {
  if (hostname === 'vm') return [{ address: '127.0.0.1', family: 4 }];
  if (/\.example\.?$/.test(hostname)) return [{ address: PUBLIC_TEST_ADDRESS, family: 4 }];
  if (/\.invalid\.?$/.test(hostname)) throw Object.assign(new Error(`getaddrinfo ENOTFOUND ${hostname}`), { code: 'ENOTFOUND' });
  return systemLookup(hostname, { all: true, verbatim: true });
};

/**
 * Start a fresh stack for one test file. Its workers (streams, delivery queue, schedule: the same
 * handlers `npm start` runs) start only when asked, `workers: true`: the webhook tests ask; the
 * others leave them out, for the load every write would add, and so that a test recording (or
 * faulting) every DynamoDB call of the service's client sees only its request's calls (in AWS the
 * workers are other functions, with clients of their own).
 */
export async function startStack(options: { readonly workers?: boolean } = {}): Promise<Stack> {
  captureLogs();
  const dataDir = mkdtempSync(join(tmpdir(), 'gsts-test-'));
  const clock = new TestClock();
  const logsFrom = capturedLogs.length;
  const service = await startLocalService({
    port: 0,
    dataDir,
    clock,
    sweepIntervalMs: 3_600_000,
    scratchTables: true,
    // Off unless asked (the service's own default is on, as `npm start` runs them).
    workers: options.workers ?? false,
    hostLookup: testLookup,
  });
  const secrets = new SecretLedger();
  secrets.noteRawKey(service.credentials.api_key);
  for (const jwt of Object.values(service.credentials.bearer_tokens)) secrets.noteJwt(jwt);
  const unwatch = secrets.watchFetch(service.baseUrl);
  const issuer = {
    ...service.issuer,
    sign: async (...args: Parameters<typeof service.issuer.sign>) => {
      const jwt = await service.issuer.sign(...args);
      secrets.noteJwt(jwt);
      return jwt;
    },
  };
  const request: Stack['request'] = async (path, init) => {
    secrets.noteRequest(path, init);
    const res = await fetch(service.baseUrl + path, init);
    const text = await res.text();
    secrets.noteText(text);
    let body: unknown = text;
    try {
      body = JSON.parse(text);
    } catch {
      // not JSON: keep the text
    }
    return { status: res.status, headers: res.headers, body };
  };
  const settleDeliveries = async () => {
    const queue = service.workers.queues['webhook-deliveries'];
    await service.workers.settle();
    for (let turn = 0; turn < PACED_TURNS; turn++) {
      const next = nextPacedAt(queue);
      if (next === undefined) return;
      clock.advance(Math.max(0, next - clock.now()));
      await service.workers.settle();
    }
    if (nextPacedAt(queue) !== undefined) throw new Error(`deliveries still wait for their endpoints' places after ${PACED_TURNS} turns`);
  };
  return {
    ...service,
    issuer,
    clock,
    dataDir,
    secrets,
    request,
    settleDeliveries,
    post: (action, body, headers = {}) =>
      request(`/api/org-api-keys?action=${action}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', ...headers },
        body: typeof body === 'string' ? body : JSON.stringify(body),
      }),
    stop: async () => {
      unwatch();
      await service.close();
      const logs = secrets.checkLogs(capturedLogs.slice(logsFrom));
      const folder = secrets.checkFolder(dataDir, { file: join(dataDir, 'dev-credentials.json'), rawKey: service.credentials.api_key });
      rmSync(dataDir, { recursive: true, force: true });
      addFigures({
        logLinesScanned: logs.linesScanned,
        secretsChecked: secrets.size,
        dataFilesScanned: folder.filesScanned,
        stacksChecked: 1,
      });
      const leaks = [...logs.leaks, ...folder.leaks];
      if (leaks.length > 0) {
        throw new Error(`secrets leaked: ${leaks.map((l) => `${l.kind} ${l.prefix}… in ${l.where}`).join('; ')}`);
      }
    },
  };
}

/**
 * Where the patched streams put what they capture. The worker's stdout and stderr outlive a test
 * file (Jest hands every file the same streams), so they are patched once per process and each
 * file points the sink at its own `capturedLogs`: a patch per file would wrap the last one and
 * keep every earlier file's lines and modules alive for the worker's life.
 */
const SINK = '__gstsCapturedLogs';
type PatchedStream = NodeJS.WriteStream & { [SINK]?: { lines: string[] } };

function captureLogs(): void {
  for (const stream of [process.stdout, process.stderr] as PatchedStream[]) {
    if (stream[SINK]) {
      stream[SINK].lines = capturedLogs;
      continue;
    }
    const sink = { lines: capturedLogs };
    stream[SINK] = sink;
    const write = stream.write.bind(stream);
    stream.write = ((chunk: string | Uint8Array, ...rest: unknown[]) => {
      const text = typeof chunk === 'string' ? chunk : Buffer.from(chunk).toString('utf8');
      sink.lines.push(text);
      // The service's JSON log lines and metric (EMF) lines are kept from the terminal; anything
      // else (jest's own reporter when a single file runs in band) still reaches it.
      if (text.startsWith('{"level"') || text.startsWith('{"_aws"')) {
        const callback = rest.find((r) => typeof r === 'function') as (() => void) | undefined;
        callback?.();
        return true;
      }
      return (write as (...args: unknown[]) => boolean)(chunk, ...rest);
    }) as typeof stream.write;
  }
}
