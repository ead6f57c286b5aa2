import { createHash } from 'node:crypto';
import { isoTime, type Clock } from './clock.js';
import { RateLimited, statusOf, TierRequired, Unauthenticated } from './errors.js';
import { tierAllowsApi, type ApiKeyRecord, type AuditRecord, type CallContext } from './model.js';
import type { AuditStore, CounterStore, KeyStore } from './ports.js';
import { rateState, rateWindows, secondsToReset, type RateWindow } from './rate-limit.js';

/** The raw API key format: `dpk_` and 40 hex characters. */
export const API_KEY_PATTERN = /^dpk_[0-9a-f]{40}$/;

/** A presented API key, reduced to what may be kept: its hash and its 8-character prefix. */
export interface KeyCredential {
  readonly keyHash: string;
  readonly keyPrefix: string;
}

/** SHA-256 (hex) of a raw key: the only form in which a key is ever stored. */
export function hashApiKey(rawKey: string): string {
  return createHash('sha256').update(rawKey).digest('hex');
}

/** Reduce a presented key to a credential. @throws Unauthenticated when it is malformed. */
export function keyCredential(rawKey: string | undefined): KeyCredential {
  if (!rawKey) throw new Unauthenticated('Missing API key (x-api-key header)');
  if (!API_KEY_PATTERN.test(rawKey)) throw new Unauthenticated('Invalid API key');
  return { keyHash: hashApiKey(rawKey), keyPrefix: rawKey.slice(0, 8) };
}

/** What a metered call did, for its audit record. */
export interface CallSubject {
  readonly action: string;
  readonly game_id?: number | null;
  readonly stream_id?: number | null;
  readonly token?: string | null;
}

/** The main write of a call, with the way to take it back if the call is refused after all. */
export interface Effect<T> {
  run(): Promise<T>;
  /**
   * Take the write back. Called with the run's result, or with `undefined` when the run failed
   * without a verdict (a network error or timeout: it may have been applied, its answer lost), so
   * an undo must also be harmless when the run never applied.
   */
  undo(result: T | undefined): Promise<void>;
}

/** Keys remembered as rate-limited at most; beyond it the memory starts afresh (it is only a shortcut). */
const MAX_BLOCKED_KEYS = 10_000;

export interface KeyCallsDeps {
  readonly keys: KeyStore;
  readonly counters: CounterStore;
  readonly audit: AuditStore;
  readonly clock: Clock;
  readonly auditRetentionDays: number;
  /** Reports a failure that must not fail the call (a compensation or a use stamp). */
  readonly onBackgroundError?: (error: unknown, what: string) => void;
}

/**
 * Calls authenticated by an API key: authentication (one strongly consistent read), then one
 * parallel stage that counts the call in both rate windows, performs its main write and writes
 * its audit record. When any part refuses or fails, the others are compensated: the main write
 * is undone, a window that counted a call the other refused is decremented, and the audit record
 * is rewritten with the real outcome. No transaction needed, and the success path is two stages.
 */
export class KeyCalls {
  /** Minute in which this container last stamped a key's `last_used_at`, by key hash. */
  private readonly stamped = new Map<string, number>();
  /**
   * Windows this container has seen refuse a key (by key id): the window's counter and the limit it
   * had. While the same window is current and the limit has not grown, the key's calls are refused
   * from memory, with no write at all (no count, no audit record, no use stamp): a client hammering
   * an exhausted key costs one read per call.
   */
  private readonly blocked = new Map<number, Map<RateWindow['name'], Pick<RateWindow, 'counterKey' | 'limit'>>>();

  constructor(private readonly deps: KeyCallsDeps) {}

  /**
   * The key behind a credential, if it may call the API now.
   * @throws Unauthenticated (unknown, revoked, expired), TierRequired
   */
  async authenticate(credential: KeyCredential): Promise<ApiKeyRecord> {
    const key = await this.deps.keys.getByHash(credential.keyHash);
    if (!key) throw new Unauthenticated('Invalid API key');
    if (!key.is_active) throw new Unauthenticated('API key has been revoked');
    if (key.expires_at !== null && Date.parse(key.expires_at) <= this.deps.clock.now()) {
      throw new Unauthenticated('API key has expired');
    }
    if (!tierAllowsApi(key.org_tier)) throw new TierRequired();
    return key;
  }

  /**
   * Count, perform and audit one call of an authenticated key. `refusal`, when given, is the error
   * the call ends with after being counted (it was refused after authentication, e.g. out of
   * scope): it is audited with its status and thrown.
   */
  async meter<T>(key: ApiKeyRecord, call: CallContext, subject: CallSubject, effect: Effect<T>): Promise<T>;
  async meter(key: ApiKeyRecord, call: CallContext, subject: CallSubject, effect: undefined, refusal: Error): Promise<never>;
  async meter<T>(key: ApiKeyRecord, call: CallContext, subject: CallSubject, effect?: Effect<T>, refusal?: Error): Promise<T> {
    const { counters, audit, clock } = this.deps;
    const now = clock.now();
    const windows = rateWindows(key, now);
    const known = this.knownExhausted(key, windows);
    if (known.length > 0) {
      call.rateLimit = rateState(
        windows,
        windows.map((w) => (known.includes(w) ? 'exhausted' : undefined)),
        now,
      );
      const refusedBy = known.at(-1)!;
      throw new RateLimited(refusedBy.name, secondsToReset(refusedBy, now));
    }
    const record = this.auditRecord(key, call, subject, now, refusal ? statusOf(refusal) : 200);
    const ttl = Math.floor(now / 1000) + this.deps.auditRetentionDays * 86_400;

    const [minute, day, done, audited] = await Promise.allSettled([
      counters.hit(windows[0]),
      counters.hit(windows[1]),
      effect ? effect.run() : Promise.resolve(undefined),
      audit.put(record, ttl),
      this.stampUse(key, now),
    ]);
    const counts = [minute, day].map((r) => (r.status === 'fulfilled' ? r.value : undefined));
    call.rateLimit = rateState(windows, counts, now);

    // When both refuse, the retry is due when the later window (the day) resets.
    const refusedBy = windows.findLast((_, i) => counts[i] === 'exhausted');
    windows.forEach((w, i) => counts[i] === 'exhausted' && this.rememberExhausted(key, w));
    const failure: unknown = refusedBy
      ? new RateLimited(refusedBy.name, secondsToReset(refusedBy, now))
      : ([minute, day, done, audited].find((r) => r.status === 'rejected')?.reason ?? refusal);
    if (failure === undefined) return (done as PromiseFulfilledResult<T>).value;

    // Compensate in parallel; the call already failed, so a failing compensation is only reported.
    const compensations: [string, Promise<unknown>][] = [];
    if (refusedBy) {
      windows.forEach((w, i) => {
        if (typeof counts[i] === 'number') compensations.push([`compensation: ${w.name} count`, counters.unhit(w)]);
      });
    }
    if (effect && done.status === 'fulfilled') compensations.push(['compensation: undo', effect.undo(done.value as T)]);
    // A run that failed with an error no domain rule explains may have been applied: undo it too.
    if (effect && done.status === 'rejected' && statusOf(done.reason) === 500) {
      compensations.push(['compensation: undo', effect.undo(undefined)]);
    }
    const status = statusOf(failure);
    if (status !== record.status || audited.status === 'rejected') {
      // Should this fail too, the record may still say 200: the log line names the request and the real outcome.
      const correction = `compensation: audit record of request ${call.requestId} must say ${status}`;
      compensations.push([correction, audit.put({ ...record, status }, ttl)]);
    }
    const settled = await Promise.allSettled(compensations.map(([, p]) => p));
    settled.forEach((r, i) => r.status === 'rejected' && this.deps.onBackgroundError?.(r.reason, compensations[i]![0]));
    throw failure;
  }

  private auditRecord(key: ApiKeyRecord, call: CallContext, subject: CallSubject, now: number, status: number): AuditRecord {
    return {
      org_id: key.org_id,
      at: isoTime(now),
      request_id: call.requestId,
      action: subject.action,
      status,
      key_id: key.id,
      key_prefix: key.key_prefix,
      actor: null,
      game_id: subject.game_id ?? null,
      stream_id: subject.stream_id ?? null,
      token_prefix: subject.token ? subject.token.slice(0, 8) : null,
      source_ip: call.sourceIp,
      user_agent: call.userAgent,
    };
  }

  /** The windows of `key` this container knows to be exhausted now (none when a limit was raised). */
  private knownExhausted(key: ApiKeyRecord, windows: readonly RateWindow[]): RateWindow[] {
    const memo = this.blocked.get(key.id);
    if (!memo) return [];
    const known = windows.filter((w) => {
      const seen = memo.get(w.name);
      return seen !== undefined && seen.counterKey === w.counterKey && w.limit <= seen.limit;
    });
    if (known.length === 0) this.blocked.delete(key.id);
    return known;
  }

  private rememberExhausted(key: ApiKeyRecord, w: RateWindow): void {
    if (this.blocked.size >= MAX_BLOCKED_KEYS && !this.blocked.has(key.id)) this.blocked.clear();
    const memo = this.blocked.get(key.id) ?? new Map();
    memo.set(w.name, { counterKey: w.counterKey, limit: w.limit });
    this.blocked.set(key.id, memo);
  }

  /** `last_used_at` at minute precision: at most one write per key, minute and container. */
  private async stampUse(key: ApiKeyRecord, now: number): Promise<void> {
    const minute = Math.floor(now / 60_000);
    if (this.stamped.get(key.key_hash) === minute) return;
    this.stamped.set(key.key_hash, minute);
    try {
      await this.deps.keys.touch(key.key_hash, isoTime(now));
    } catch (error) {
      this.deps.onBackgroundError?.(error, 'last_used_at');
    }
  }
}
