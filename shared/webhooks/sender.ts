/**
 * One delivery attempt over HTTP, with the guard against server-side request forgery around it
 * (`addresses.ts`): the URL checked again (deployed: https to a public host only; locally also
 * http to localhost and 127.0.0.1), the host resolved, EVERY address it resolves to checked, and
 * the connection pinned to the checked address (the socket's `lookup` hands back that address, so
 * no second resolution can answer differently: DNS rebinding), TLS still verified against the host
 * name. A POST of the signed body, no redirect followed (a 3xx is the answer, a failure), at most
 * {@link ATTEMPT_TIMEOUT_MS} from start to status line, at most {@link MAX_ANSWER_BYTES} of the
 * answer read and dropped (never stored: a receiver's answer is no business of ours, and a huge
 * one must not hold the function).
 *
 * The error strings are what the deliveries list shows; they name a class or a cause, never a
 * header or the body (the signature is derived from the secret).
 */
import { lookup as dnsLookup } from 'node:dns/promises';
import http from 'node:http';
import https from 'node:https';
import { isIP, type LookupFunction } from 'node:net';
import type { HostLookup } from '../platform/services.js';

export type { HostLookup } from '../platform/services.js';
import { checkResolved, checkUrl, classifyAddress, type Deployment } from './addresses.js';
import type { AttemptReport, AttemptRequest, AttemptSender } from './ports.js';
import { ATTEMPT_TIMEOUT_MS } from './schedule.js';

/** How much of an answer is read (then dropped) before the connection is closed. */
const MAX_ANSWER_BYTES = 64 * 1024;

/** What the sender is told of its surroundings. */
export interface HttpSenderOptions {
  readonly deployment: Deployment;
  /** The resolver (tests inject one); the system's by default. */
  readonly lookup?: HostLookup;
  /** The attempt's limit; {@link ATTEMPT_TIMEOUT_MS} by default. */
  readonly timeoutMs?: number;
}

/** The system's resolver. */
export const systemLookup: HostLookup = (hostname) => dnsLookup(hostname, { all: true, verbatim: true });

/** What resolving a host came to: its addresses; or why none, and whether the name is known not to exist. */
export type Resolution =
  | { readonly ok: true; readonly addresses: readonly string[] }
  | { readonly ok: false; readonly error: string; readonly noSuchHost: boolean };

/** The addresses of `host` (an address literal is its own), within `timeoutMs`. */
export async function resolveHost(host: string, lookup: HostLookup, timeoutMs: number): Promise<Resolution> {
  if (isIP(host) !== 0) return { ok: true, addresses: [host] };
  try {
    const resolved = await withinTime(lookup(host), timeoutMs);
    if (resolved === undefined) return { ok: false, error: 'timeout', noSuchHost: false };
    return { ok: true, addresses: resolved.map((entry) => entry.address) };
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    return { ok: false, error: dnsFailure(error), noSuchHost: code === 'ENOTFOUND' || code === 'ENODATA' };
  }
}

/** Our `User-Agent`, so a receiver's logs say who called. */
const USER_AGENT = 'gsts-webhooks/1.0';

/** See the module comment. */
export class HttpSender implements AttemptSender {
  private readonly lookup: HostLookup;
  private readonly timeoutMs: number;

  constructor(private readonly options: HttpSenderOptions) {
    this.lookup = options.lookup ?? systemLookup;
    this.timeoutMs = options.timeoutMs ?? ATTEMPT_TIMEOUT_MS;
  }

  async send(request: AttemptRequest): Promise<AttemptReport> {
    const started = performance.now();
    const elapsed = () => Math.round(performance.now() - started);
    const failed = (error: string): AttemptReport => ({ status: null, elapsedMs: elapsed(), error });

    const check = checkUrl(request.url, this.options.deployment);
    if (!check.ok) return failed(urlRefusal(request.url, check.reason));
    const { url } = check;
    const host = url.hostname.startsWith('[') ? url.hostname.slice(1, -1) : url.hostname;

    const resolution = await resolveHost(host, this.lookup, this.timeoutMs);
    if (!resolution.ok) return failed(resolution.error);
    const { addresses } = resolution;
    const verdict = checkResolved(addresses, check.expect);
    if (!verdict.ok) return failed(`address refused: ${verdict.addressClass ?? verdict.reason}`);

    return post(url, host, addresses[0]!, request, Math.max(0, this.timeoutMs - elapsed()), started);
  }
}

/** The refusal of a URL the check turned down: a host given as a refused address by its class, anything else in the check's words. */
function urlRefusal(raw: string, reason: string): string {
  let host: string | undefined;
  try {
    host = new URL(raw).hostname.replace(/^\[(.*)\]$/, '$1');
  } catch {
    // not a URL: the check's words say so
  }
  const literal = host !== undefined && isIP(host) !== 0 ? classifyAddress(host) : undefined;
  return literal !== undefined && literal !== 'public' && reason.startsWith('must not point to')
    ? `address refused: ${literal}`
    : `url refused: ${reason}`;
}

/** `promise`'s value, or undefined when it takes longer than `ms`. */
async function withinTime<T>(promise: Promise<T>, ms: number): Promise<T | undefined> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<undefined>((resolve) => (timer = setTimeout(() => resolve(undefined), ms)));
  try {
    return await Promise.race([promise, late]);
  } finally {
    clearTimeout(timer);
  }
}

/** The POST itself, connected to `address` and nowhere else, within `remainingMs`. */
function post(
  url: URL,
  host: string,
  address: string,
  request: AttemptRequest,
  remainingMs: number,
  started: number,
): Promise<AttemptReport> {
  const family = isIP(address);
  // The socket asks this instead of DNS: the checked address, whatever the name resolves to now.
  const pinned: LookupFunction = (_hostname, options, callback) => {
    if (options.all) callback(null, [{ address, family }]);
    else callback(null, address, family);
  };
  const secure = url.protocol === 'https:';
  return new Promise<AttemptReport>((resolve) => {
    let settled = false;
    let statusAt: number | undefined;
    let status: number | null = null;
    const finish = (error: string | null) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      const elapsedMs = Math.round((statusAt ?? performance.now()) - started);
      resolve({
        status,
        elapsedMs,
        error: status === null ? (error ?? 'no answer') : status >= 300 && status <= 399 ? 'redirect not followed' : null,
      });
    };
    const req = (secure ? https : http).request({
      method: 'POST',
      hostname: host,
      port: url.port === '' ? (secure ? 443 : 80) : Number(url.port),
      path: `${url.pathname}${url.search}`,
      headers: {
        'content-type': 'application/json',
        'content-length': Buffer.byteLength(request.body, 'utf8'),
        'user-agent': USER_AGENT,
        ...request.headers,
      },
      lookup: pinned,
      // TLS checks the certificate against the host name, not the address connected to (SNI takes no address).
      ...(secure && isIP(host) === 0 ? { servername: host } : {}),
      // A connection of its own, closed after: no pooled socket to some other address, nothing kept between attempts.
      agent: false,
    });
    const timer = setTimeout(() => {
      if (status === null) finish('timeout');
      else finish(null);
      req.destroy();
    }, remainingMs);
    req.on('response', (res) => {
      statusAt = performance.now();
      status = res.statusCode ?? null;
      let read = 0;
      res.on('data', (chunk: Buffer) => {
        read += chunk.length;
        if (read > MAX_ANSWER_BYTES) {
          finish(null);
          res.destroy();
        }
      });
      res.on('end', () => finish(null));
      res.on('close', () => finish(null));
      res.on('error', () => finish(null));
    });
    req.on('error', (error) => finish(connectionFailure(error)));
    req.end(request.body, 'utf8');
  });
}

/** A failed connection in the list's words. */
function connectionFailure(error: unknown): string {
  const code = (error as NodeJS.ErrnoException).code;
  switch (code) {
    case 'ECONNREFUSED':
      return 'connection refused';
    case 'ECONNRESET':
    case 'EPIPE':
      return 'connection reset';
    case 'ETIMEDOUT':
      return 'timeout';
    case 'EHOSTUNREACH':
    case 'ENETUNREACH':
      return 'host unreachable';
    default:
      if (code !== undefined && /CERT|TLS|SSL/.test(code)) return `tls: ${code}`;
      return `connection failed: ${code ?? 'unknown'}`;
  }
}

/** A failed resolution in the list's words. */
function dnsFailure(error: unknown): string {
  const code = (error as NodeJS.ErrnoException).code;
  if (code === 'ENOTFOUND' || code === 'ENODATA') return 'dns: no such host';
  if (code === 'EAI_AGAIN') return 'dns: temporary failure';
  return `dns: ${code ?? 'failed'}`;
}
