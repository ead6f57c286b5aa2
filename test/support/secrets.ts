/**
 * Secrets hygiene for every integration stack: a ledger of each secret a test file saw (the demo
 * key, raw keys presented or returned by create-key, session tokens returned or presented, bearer
 * JWTs signed or forged, webhook signing secrets returned by create-webhook and rotate-webhook-secret), checked when the stack stops against every log line the service wrote
 * (only 8-character prefixes may appear) and against the data folder (no raw key may be stored,
 * save the demo key in the credentials file whose purpose is to hand it over; no webhook secret at
 * all: they are stored sealed).
 */
import { readdirSync, readFileSync } from 'node:fs';
import { basename, join } from 'node:path';

/** A raw API key anywhere in a text. */
const RAW_KEY = /dpk_[0-9a-f]{40}/g;
/** A webhook signing secret (`whsec_` + base64 of 24 to 64 bytes) anywhere in a text. */
const WEBHOOK_SECRET = /whsec_[A-Za-z0-9+/]{32,}={0,2}/g;
/** A `"token": "<uuid>"` member anywhere in a text, also inside JSON encoded in a string (MCP tool results). */
const TOKEN_MEMBER =
  /\\?"(?:token|session_token)\\?"\s*:\s*\\?"([0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12})/g;
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
/** The part of a secret that may be logged: its first 8 characters (key prefix, token prefix). */
const LOGGABLE_PREFIX = 8;
/** Presented credentials shorter than this are not secrets but noise (`x-api-key: abc`). */
const MIN_SECRET_LENGTH = 20;

/** One secret found where it must not be. */
export interface Leak {
  readonly kind: string;
  /** Where it was found (a data file, or `logs`). */
  readonly where: string;
  /** The loggable prefix of the secret, to name it without repeating it. */
  readonly prefix: string;
}

/** Every secret one stack's tests handled. */
export class SecretLedger {
  /** Secret value -> kind (`api key`, `token`, `jwt`, `credential`). */
  private readonly secrets = new Map<string, string>();

  /** A raw API key (demo key, created, forged or presented). */
  noteRawKey(raw: string): void {
    this.note(raw, 'api key');
  }
  /** A session token. */
  noteToken(token: string): void {
    if (UUID.test(token)) this.note(token.toLowerCase(), 'token');
  }
  /** A bearer JWT (issued by the local identity provider, or forged with its key). */
  noteJwt(jwt: string): void {
    this.note(jwt, 'jwt');
  }

  /** Everything secret a request carries: its credential headers, tokens in its query and body. */
  noteRequest(path: string, init: RequestInit | undefined): void {
    const headers = new Headers(init?.headers);
    const apiKey = headers.get('x-api-key');
    if (apiKey) this.note(apiKey, RAW_KEY_SHAPE.test(apiKey) ? 'api key' : 'credential');
    const authorization = headers.get('authorization');
    const bearer = authorization ? /^Bearer\s+(.+)$/i.exec(authorization)?.[1] : undefined;
    if (bearer) this.note(bearer.trim(), 'jwt');
    const url = new URL(path, 'http://localhost');
    for (const name of ['token', 'session_token']) for (const value of url.searchParams.getAll(name)) this.noteToken(value);
    if (typeof init?.body === 'string') this.noteText(init.body);
  }

  /** Secrets in a response (or request) text: raw keys, and tokens in `token` members. */
  noteText(text: string): void {
    for (const [raw] of text.matchAll(RAW_KEY)) this.noteRawKey(raw);
    for (const match of text.matchAll(TOKEN_MEMBER)) this.noteToken(match[1]!);
    for (const [secret] of text.matchAll(WEBHOOK_SECRET)) this.note(secret, 'webhook secret');
  }

  /** How many secrets are known. */
  get size(): number {
    return this.secrets.size;
  }

  /**
   * Check log lines: no secret may appear beyond its loggable prefix. For raw keys the 40 hex
   * characters count on their own too, for JWTs the signature, for tokens everything after the prefix.
   */
  checkLogs(lines: readonly string[]): { linesScanned: number; leaks: Leak[] } {
    const text = lines.join('');
    const linesScanned = text.split('\n').filter((l) => l.trim() !== '').length;
    const leaks: Leak[] = [];
    for (const [secret, kind] of this.secrets) {
      if (needles(secret, kind).some((n) => text.includes(n)))
        leaks.push({ kind, where: 'logs', prefix: secret.slice(0, LOGGABLE_PREFIX) });
    }
    return { linesScanned, leaks };
  }

  /**
   * Check every file under `dir` for raw keys: any `dpk_` + 40 hex, and the hex part of every raw
   * key seen. `allowed` is the one file that may hold one key (the credentials file and the demo key).
   */
  checkFolder(dir: string, allowed: { file: string; rawKey: string }): { filesScanned: number; leaks: Leak[] } {
    const files = readdirSync(dir, { withFileTypes: true, recursive: true })
      .filter((e) => e.isFile())
      .map((e) => join(e.parentPath, e.name));
    const keys = [...this.secrets].filter(([, kind]) => kind === 'api key').map(([raw]) => raw);
    const webhookSecrets = [...this.secrets].filter(([, kind]) => kind === 'webhook secret').map(([secret]) => secret);
    const leaks: Leak[] = [];
    for (const file of files) {
      const bytes = readFileSync(file);
      const permitted = (raw: string) => file === allowed.file && raw === allowed.rawKey;
      for (const [raw] of bytes.toString('latin1').matchAll(RAW_KEY)) {
        if (!permitted(raw)) leaks.push({ kind: 'api key', where: basename(file), prefix: raw.slice(0, LOGGABLE_PREFIX) });
      }
      for (const raw of keys) {
        if (!permitted(raw) && bytes.includes(raw.slice(4)))
          leaks.push({ kind: 'api key (hex)', where: basename(file), prefix: raw.slice(0, 8) });
      }
      for (const [secret] of bytes.toString('latin1').matchAll(WEBHOOK_SECRET)) {
        leaks.push({ kind: 'webhook secret', where: basename(file), prefix: secret.slice(0, LOGGABLE_PREFIX) });
      }
      for (const secret of webhookSecrets) {
        if (bytes.includes(secret.slice(6)))
          leaks.push({ kind: 'webhook secret (key)', where: basename(file), prefix: secret.slice(0, 8) });
      }
    }
    return { filesScanned: files.length, leaks };
  }

  /**
   * Note every request to `baseUrl` made with the global `fetch` (the MCP SDK client's, the play
   * pages' helpers', anyone's), with its answer. Returns the function that stops watching.
   */
  watchFetch(baseUrl: string): () => void {
    const inner = globalThis.fetch;
    const watching: typeof fetch = async (input, init) => {
      const url = typeof input === 'string' ? input : input instanceof URL ? input.href : input.url;
      if (!url.startsWith(baseUrl)) return inner(input, init);
      this.noteRequest(url.slice(baseUrl.length), init ?? (input instanceof Request ? { headers: input.headers } : undefined));
      const response = await inner(input, init);
      response
        .clone()
        .text()
        .then((text) => this.noteText(text))
        .catch(() => undefined);
      return response;
    };
    globalThis.fetch = watching;
    return () => {
      // Another stack may have wrapped it since: then this one stays in its chain, harmlessly.
      if (globalThis.fetch === watching) globalThis.fetch = inner;
    };
  }

  private note(value: string, kind: string): void {
    if (value.length >= MIN_SECRET_LENGTH && !this.secrets.has(value)) this.secrets.set(value, kind);
  }
}

const RAW_KEY_SHAPE = /^dpk_[0-9a-f]{40}$/;

/** The strings that must not appear in logs for one secret. */
function needles(secret: string, kind: string): string[] {
  switch (kind) {
    case 'api key':
      return [secret.slice(4)];
    case 'webhook secret':
      // The key's base64 (`whsec_` itself is the loggable part).
      return [secret.slice(6)];
    case 'token':
      return [secret.slice(LOGGABLE_PREFIX + 1), secret.toUpperCase().slice(LOGGABLE_PREFIX + 1)];
    case 'jwt': {
      const signature = secret.split('.')[2];
      return [secret, ...(signature && signature.length >= MIN_SECRET_LENGTH ? [signature] : [])];
    }
    default:
      return [secret.slice(LOGGABLE_PREFIX)];
  }
}
