import { createHash } from 'node:crypto';
import { isoTime, type Clock } from './clock.js';
import { RateLimited, statusOf, TierRequired, Unauthenticated } from './errors.js';
import { tierAllowsApi, type ApiKeyRecord, type AuditRecord, type CallContext } from './model.js';
import type { AuditStore, CounterStore, KeyStore } from './ports.js';
import { rateState, rateWindows, secondsToReset } from './rate-limit.js';

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
  undo(result: T): Promise<void>;
}

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
    const failure: unknown = refusedBy
      ? new RateLimited(refusedBy.name, secondsToReset(refusedBy, now))
      : ([minute, day, done, audited].find((r) => r.status === 'rejected')?.reason ?? refusal);
    if (failure === undefined) return (done as PromiseFulfilledResult<T>).value;

    // Compensate in parallel; the call already failed, so a failing compensation is only reported.
    const compensations: Promise<unknown>[] = [];
    if (refusedBy) {
      windows.forEach((w, i) => {
        if (typeof counts[i] === 'number') compensations.push(counters.unhit(w));
      });
    }
    if (effect && done.status === 'fulfilled') compensations.push(effect.undo(done.value as T));
    const status = statusOf(failure);
    if (status !== record.status || audited.status === 'rejected') {
      compensations.push(audit.put({ ...record, status }, ttl));
    }
    const settled = await Promise.allSettled(compensations);
    for (const r of settled) if (r.status === 'rejected') this.deps.onBackgroundError?.(r.reason, 'compensation');
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
