import { asFollowUp, isoTime, type Clock } from '../platform/time.js';
import { auditRecord, type AuditRecord, type AuditStore, type UsageRollupStore } from '../audit/index.js';
import { Conflict, Overloaded, RateLimited, statusOf, TierRequired, Unauthenticated, Unprocessable } from '../platform/errors.js';
import { tierAllowsApi } from '../catalog/index.js';
import { type ApiKeyRecord } from './model.js';
import { type CallContext } from '../platform/call.js';
import type { CounterLayoutStore, CounterStore, KeyStore, RateNoticeStore } from './ports.js';
import { CallRecords, type CallSubject, type Effect } from './call-records.js';
import type { KeyCredential } from './credential.js';
import { RateNotices } from './rate-notices.js';
import { ExhaustedShards, RefusalTally, type RefusalCount } from './refusals-from-memory.js';
import { AheadVerdict, KnownKeys, sameTerms, type Ahead } from './known-keys.js';
import {
  CounterLayouts,
  StaleKey,
  counterSlot,
  dayStartOf,
  estimatedTotal,
  rateState,
  rateWindows,
  remaining,
  secondsToReset,
  type CounterLayout,
  type CounterSlot,
  type RateWindow,
  type SlotCount,
} from './rate-limit.js';

/** Most counter shards one call tries (`count()`): two when they are full, three when throttled. */
const MAX_SHARD_TRIES = 3;
/**
 * Most counter layouts one call tries: a limit change closes the one it counted in (sealed), or
 * the key it holds is older than the day's layout and is read again ({@link CounterLayouts}).
 */
const MAX_LAYOUT_TRIES = 4;

export interface KeyCallsDeps {
  readonly keys: Pick<KeyStore, 'getByHash' | 'touch'>;
  readonly counters: CounterStore & CounterLayoutStore;
  /**
   * Where a key's exhausted window is noticed once (`key.rate_limited`, shared/webhooks/); absent:
   * not noticed.
   */
  readonly notices?: RateNoticeStore;
  /**
   * The usage rollup (`shared/audit/audit-store.ts`): where refused calls are counted for the usage report,
   * audited ones (403, 429) and the 429s answered from memory (`refusals-from-memory.ts`); absent: not counted.
   */
  readonly rollups?: Pick<UsageRollupStore, 'addRefusals'>;
  readonly audit: AuditStore;
  readonly clock: Clock;
  readonly auditRetentionDays: number;
  /** Writes per second one DynamoDB partition takes (1,000): sizes the counter shards. */
  readonly partitionWriteUnits: number;
  /** Picks a counter shard (uniform in [0, 1)); `Math.random` by default. */
  readonly random?: () => number;
  /** Reports a failure that must not fail the call (a compensation or a use stamp). */
  readonly onBackgroundError?: (error: unknown, what: string) => void;
}

/**
 * Where a call was counted: the shard's item and its counts after the call, in which layout, under
 * which limits (the key as read again, when a limit change met the call).
 */
type Counted = {
  readonly slot: CounterSlot;
  readonly minute: number;
  readonly day: number;
  readonly layout: CounterLayout;
  readonly key: ApiKeyRecord;
};

/** A claim's outcome, as the metering of a call ahead of its key's read needs it. */
type ClaimOutcome = { readonly claimed: boolean; readonly stored?: unknown };

/** What a call that ran ahead wrote, for {@link KeyCalls.takenBack}. */
type AheadWrites<T> = {
  readonly record: AuditRecord;
  readonly placed: AuditRecord;
  readonly ttl: number;
  readonly effect: Effect<T> | undefined;
  readonly done: PromiseSettledResult<T | undefined>;
  readonly count: Counted | { refusedBy: RateWindow['name'] } | undefined;
  readonly now: number;
};

/** The key's read and the claim of a call ahead, both settled (neither rejects the whole). */
type Settled = readonly [PromiseSettledResult<ApiKeyRecord>, PromiseSettledResult<ClaimOutcome | undefined>];

function settled(ahead: Ahead<ClaimOutcome>): Promise<Settled> {
  return Promise.allSettled([ahead.key, ahead.claim ?? Promise.resolve(undefined)]);
}

/**
 * What the key's read and the claim say of a call that ran ahead with `ran`: an {@link AheadVerdict}
 * that overrules it (the key refused; a stored answer to give again; the key changed), the claim's
 * refusal (409, 422: the call's own refusal), or nothing (the call stands as it ran).
 */
function verdictOf(ran: ApiKeyRecord, [key, claim]: Settled, counted?: PromiseSettledResult<unknown>): AheadVerdict | Error | undefined {
  if (key.status === 'rejected') return new AheadVerdict({ kind: 'refused', refusal: key.reason });
  if (claim.status === 'fulfilled' && claim.value && !claim.value.claimed)
    return new AheadVerdict({ kind: 'replayed', stored: claim.value.stored });
  // A count that met a newer layout than the key as read knows (the read came before the change):
  // served again on the slow path too, which reads the key once more.
  if (!sameTerms(ran, key.value) || (counted?.status === 'rejected' && counted.reason instanceof StaleKey))
    return new AheadVerdict({ kind: 'changed', key: key.value });
  if (claim.status !== 'rejected') return undefined;
  // A claim refused (409 in progress, 422 another body) is the call's refusal; a claim that failed
  // (a 5xx) ends the call as on the slow path, before anything is counted: all is taken back.
  const { reason } = claim;
  return reason instanceof Conflict || reason instanceof Unprocessable ? reason : new AheadVerdict({ kind: 'refused', refusal: reason });
}

/**
 * Calls authenticated by an API key: authentication (one strongly consistent read), then one
 * parallel stage that counts the call in both rate windows (one conditional write on the key's
 * counter item, see `rate-limit.ts`), writes its audit record and performs a speculative main write.
 * A main write of a shared item follows the count as a stage of its own. When any part refuses or
 * fails, the speculative write is undone and the audit record is rewritten with the real outcome;
 * a refused count counted nothing, so counters never need an undo.
 *
 * A call may also run ahead of its key's read (`runAhead`: create-session of a key this container
 * has read valid): that stage then carries the read too, and the read decides afterwards. Only such
 * a call's count is ever taken back (`uncount`, an `ADD -1`), when the read overrules it.
 */
export class KeyCalls {
  /** Minute in which this container last stamped a key's `last_used_at`, by key hash. */
  private readonly stamped = new Map<string, number>();
  private readonly exhausted = new ExhaustedShards();
  private readonly refusals = new RefusalTally();
  private readonly known = new KnownKeys();
  /**
   * The calls ahead of their key's read under way in this container, by key id, until their count
   * stands or is taken back: a hand-over to a new counter layout waits for them, so that it never
   * carries a count about to be taken back ({@link CounterLayouts} remembers what it carried).
   */
  private readonly inFlight = new Map<number, Set<Promise<unknown>>>();
  /** The calls that run ahead of their key's read, until their metering takes them (`runAhead`). */
  private readonly ahead = new WeakMap<CallContext, Ahead<ClaimOutcome>>();
  private readonly layouts: CounterLayouts;

  private readonly records: CallRecords;
  private readonly notices: RateNotices;

  constructor(private readonly deps: KeyCallsDeps) {
    this.records = new CallRecords(deps);
    this.notices = new RateNotices(deps.notices);
    this.layouts = new CounterLayouts(deps.counters, deps.partitionWriteUnits);
  }

  /**
   * The key behind a credential, if it may call the API now.
   * @throws Unauthenticated (unknown, revoked, expired), TierRequired
   */
  async authenticate(credential: KeyCredential): Promise<ApiKeyRecord> {
    const key = await this.deps.keys.getByHash(credential.keyHash);
    try {
      if (!key) throw new Unauthenticated('Invalid API key');
      if (!key.is_active) throw new Unauthenticated('API key has been revoked');
      if (key.expires_at !== null && Date.parse(key.expires_at) <= this.deps.clock.now()) {
        throw new Unauthenticated('API key has expired');
      }
      if (!tierAllowsApi(key.org_tier)) throw new TierRequired();
    } catch (refusal) {
      this.known.refused(credential.keyHash);
      throw refusal;
    }
    this.known.valid(key);
    return key;
  }

  /**
   * The credential's key as its last authentication in this container read it, if it passed (and
   * has not expired since): only such a key's request may write before its own authentication
   * answers (`known-keys.ts`).
   */
  provisional(credential: KeyCredential): ApiKeyRecord | undefined {
    return this.known.get(credential.keyHash, this.deps.clock.now());
  }

  /**
   * The key {@link provisional} gives, when a call may also run ahead with it: its counter layout is
   * known without a read. A call ahead never hands over to a new layout; a hand-over waits for the
   * calls ahead under way (they may take their counts back), so it never carries such a count.
   */
  aheadKey(credential: KeyCredential): ApiKeyRecord | undefined {
    const key = this.provisional(credential);
    return key && this.layouts.peek(key, this.deps.clock.now()) ? key : undefined;
  }

  /**
   * Let the call's metering run ahead of its key's read (and its `Idempotency-Key` claim): its
   * count, speculative write and audit record go out beside them, in one stage, for the key
   * {@link provisional} gave. The metering then takes everything back and throws an
   * {@link AheadVerdict} when the read refuses the key or finds it changed, or the claim finds a
   * stored answer; a claim refused (409, 422) is the call's refusal, as on the slow path.
   */
  runAhead(call: CallContext, ahead: Ahead<ClaimOutcome>): void {
    this.ahead.set(call, ahead);
  }

  /**
   * What the key's read and the claim say of a call ahead that its metering never took (an
   * operation that wrote nothing): an {@link AheadVerdict}, or undefined (it stands, or it was metered).
   */
  async unmetered(call: CallContext, ran: ApiKeyRecord): Promise<AheadVerdict | undefined> {
    const ahead = this.takeAhead(call);
    const overruled = ahead && verdictOf(ran, await settled(ahead));
    return overruled instanceof AheadVerdict ? overruled : undefined;
  }

  /** The call's ahead, taken by its (one) metering. */
  private takeAhead(call: CallContext): Ahead<ClaimOutcome> | undefined {
    const ahead = this.ahead.get(call);
    this.ahead.delete(call);
    return ahead;
  }

  /**
   * Count, perform and audit one call of an authenticated key. `refusal`, when given, is the error
   * the call ends with after being counted (it was refused after authentication, e.g. out of
   * scope): it is audited with its status and thrown.
   */
  async meter<T>(key: ApiKeyRecord, call: CallContext, subject: CallSubject, effect: Effect<T>): Promise<T>;
  async meter(key: ApiKeyRecord, call: CallContext, subject: CallSubject, effect: undefined, refusal: Error): Promise<never>;
  async meter<T>(key: ApiKeyRecord, call: CallContext, subject: CallSubject, effect?: Effect<T>, refusal?: Error): Promise<T> {
    const ahead = this.takeAhead(call);
    if (!ahead) return this.metered(key, call, subject, effect, refusal, undefined);
    const running = this.metered(key, call, subject, effect, refusal, ahead);
    const settledCall = running.then(
      () => undefined,
      () => undefined,
    );
    const calls = this.inFlight.get(key.id) ?? new Set<Promise<unknown>>();
    this.inFlight.set(key.id, calls.add(settledCall));
    try {
      return await running;
    } finally {
      calls.delete(settledCall);
      if (calls.size === 0) this.inFlight.delete(key.id);
    }
  }

  /** {@link meter}, for a call ahead of its key's read when `ahead` is given. */
  private async metered<T>(
    key: ApiKeyRecord,
    call: CallContext,
    subject: CallSubject,
    effect: Effect<T> | undefined,
    refusal: Error | undefined,
    ahead: Ahead<ClaimOutcome> | undefined,
  ): Promise<T> {
    const { audit, clock } = this.deps;
    const now = clock.now();
    let windows = rateWindows(key, now);
    // Known without a read, except on the day of a limit change (its first call in this container).
    const layout = this.layouts.peek(key, now);
    if (layout && this.exhausted.open(key, now, layout).length === 0) {
      // Nothing is written: a call ahead of its key's read waits for it, so that a refused key is a 401.
      const overruled = ahead && verdictOf(key, await settled(ahead));
      if (overruled instanceof AheadVerdict) throw overruled;
      // No count, no audit record: the refusal is tallied in memory, written in batches.
      const due = this.deps.rollups && this.refusals.note(key, now);
      if (due) await this.addRefusals(due, now);
      throw this.rateLimited(call, windows, this.exhausted.refusingWindow(key, now, layout), now);
    }
    const status = refusal ? statusOf(refusal) : (subject.answered ?? 200);
    const { record, ttl } = auditRecord(call, { ...subject, orgId: key.org_id, key }, status, now, this.deps.auditRetentionDays);
    const speculative = effect?.undo !== undefined;

    const [counted, early, audited, verdict] = await Promise.allSettled([
      this.count(key, now, layout, ahead !== undefined),
      speculative ? effect!.run() : Promise.resolve(undefined),
      audit.put(record, ttl),
      // A call ahead of its key's read: the read (and the claim) in the same stage as its writes.
      ahead ? settled(ahead) : Promise.resolve(undefined),
      this.stampUse(key, now),
      this.addRefusals(this.deps.rollups && this.refusals.take(key), now),
      // A call refused before it ran (403): counted for the report beside its audit record.
      this.records.countRefusal(record, status, 1, ttl, true),
    ]);
    const count = counted.status === 'fulfilled' ? counted.value : undefined;
    // A rewrite of the record goes where the first write put it.
    const placed = audited.status === 'fulfilled' ? audited.value : record;
    // What the key's read and the claim say comes first: nothing shared is written before it.
    const overruled = verdict.status === 'fulfilled' && verdict.value ? verdictOf(key, verdict.value, counted) : undefined;
    if (overruled instanceof AheadVerdict) throw await this.takenBack(overruled, { record, placed, ttl, effect, done: early, count, now });
    // A claim refused (409, 422) is the call's refusal, counted and audited as on the slow path,
    // where the claim is refused before the operation runs: it wins over the operation's own (a 403).
    const claimRefusal = overruled;
    refusal = claimRefusal ?? refusal;
    // A shared item is written only once the call is known to count (and to be refused by nothing else).
    const late =
      effect && !speculative && count && !('refusedBy' in count) && !refusal ? (await Promise.allSettled([effect.run()]))[0] : undefined;
    const done = late ?? early;

    // Refused by the rate limit: the record says 429 (it said the outcome expected: 200, or the refusal's).
    if (count && 'refusedBy' in count) {
      const notice = this.notices.noticeOf(key, windows, count.refusedBy, now);
      throw await this.records.failed(this.rateLimited(call, windows, count.refusedBy, now), placed, ttl, audited, effect, done, notice);
    }
    // Counted under limits read again (a limit change met the call): the client is told those.
    if (count && count.key !== key) windows = rateWindows(count.key, now);
    call.rateLimit = rateState(windows, count ? this.totals(count) : [undefined, undefined], now);
    // A shared write that took effect stands: the call succeeds even if its first audit write failed.
    const failure: unknown = [counted, done, late ? undefined : audited].find((r) => r?.status === 'rejected')?.reason ?? refusal;
    if (failure === undefined) {
      const value = (done as PromiseFulfilledResult<T>).value;
      await this.records.success(placed, ttl, audited.status === 'rejected', effect?.diff?.(value));
      return value;
    }
    const error = await this.records.failed(failure, placed, ttl, audited, effect, done);
    // A claim's refusal is the request's (the pipeline answers it), never an operation's own (an MCP tool error).
    throw claimRefusal !== undefined && error === claimRefusal ? new AheadVerdict({ kind: 'refused', refusal: error }) : error;
  }

  /**
   * Take back what a call that ran ahead wrote, once its key's read or its claim overruled it: the
   * speculative write undone, the count taken back (an `ADD -1`, which commutes with every other
   * call's count), and the audit record rewritten with the key's refusal (the call was made with
   * it) or removed (the call is served again, or its stored answer given: neither is this record).
   */
  private async takenBack<T>(overruled: AheadVerdict, made: AheadWrites<T>): Promise<AheadVerdict> {
    const { record, placed, ttl, effect, done, count } = made;
    return asFollowUp(async () => {
      const fixes: [string, Promise<unknown>][] = [];
      const undo = this.records.undoOf(effect, done);
      if (undo) fixes.push(undo);
      if (count && !('refusedBy' in count)) {
        const layout = { keyId: count.key.id, dayStart: dayStartOf(made.now), index: count.layout.index };
        fixes.push(['compensation: count taken back', this.deps.counters.uncount(count.slot, layout)]);
      }
      const { verdict } = overruled;
      if (verdict.kind === 'refused') fixes.push(this.records.correction(placed, statusOf(verdict.refusal), ttl));
      else fixes.push([`compensation: audit record of request ${record.request_id} removed`, this.deps.audit.remove(placed)]);
      // A refusal the record said (403) is no longer this call's: the report's count of it is taken back.
      fixes.push(['usage rollup', this.records.countRefusal(record, record.status, -1, ttl)]);
      await this.records.compensate(fixes);
      return overruled;
    });
  }

  /**
   * Count the call in one shard of the key's counter not known to be full; in one other shard if
   * that one is full (two full shards refuse the call), and in a further one, up to three in all,
   * while they stay throttled through the store's retries (a hot shard: its neighbours share the
   * key's load, and a throttled write counted nothing).
   *
   * A refused call names the window that refused it: the day when every shard it tried refused for
   * its day share (a minute's wait would not help there), else what this container knows of all the
   * shards ({@link ExhaustedShards.refusingWindow}).
   */
  private async count(
    key: ApiKeyRecord,
    now: number,
    known: CounterLayout | undefined,
    ahead = false,
  ): Promise<Counted | { refusedBy: RateWindow['name'] }> {
    let current = key;
    let layout = known;
    let sealed: number | undefined;
    for (let tries = 0; tries < MAX_LAYOUT_TRIES; tries++) {
      // A call ahead never reads or hands over a layout (it ran ahead in one known; a count refused
      // as sealed means a newer one is in force): it is served again on the slow path, which reads
      // the key first. Counting it here under the new limits would hold a place its second count
      // then competes with.
      if (!layout && ahead) throw new StaleKey();
      try {
        if (!layout) {
          // A hand-over may follow: counts of calls ahead that may yet be taken back must not be carried into it.
          await Promise.all(this.inFlight.get(key.id) ?? []);
          layout = await this.layouts.current(current, now, sealed);
        }
      } catch (error) {
        if (!(error instanceof StaleKey)) throw error;
        // The key changed since it was read: count under its limits as they are now.
        current = (await this.deps.keys.getByHash(key.key_hash)) ?? current;
        sealed = undefined;
        continue;
      }
      const counted = await this.countIn(current, now, layout);
      if (!('sealed' in counted)) return counted;
      sealed = layout.index;
      layout = undefined;
    }
    throw new Overloaded();
  }

  /** {@link count} in one layout; `sealed` when a limit change closed it. */
  private async countIn(
    key: ApiKeyRecord,
    now: number,
    layout: CounterLayout,
  ): Promise<Counted | { refusedBy: RateWindow['name'] } | { sealed: true }> {
    const tried = new Set<number>();
    const refusedBy: RateWindow['name'][] = [];
    let full = 0;
    while (tried.size < MAX_SHARD_TRIES && full < 2) {
      const open = this.exhausted.open(key, now, layout).filter((s) => !tried.has(s));
      if (open.length === 0) break;
      const shard = open[Math.floor((this.deps.random ?? Math.random)() * open.length)]!;
      const slot = counterSlot(key, now, shard, layout.shards, layout);
      tried.add(shard);
      let result: SlotCount;
      try {
        // A share of 0 (what earlier layouts of the day left is less than one per shard) is full.
        result =
          slot.dayLimit === 0
            ? { refusedBy: 'day' }
            : slot.minuteLimit === 0
              ? { refusedBy: 'minute' }
              : await this.deps.counters.count(slot);
      } catch (error) {
        if (error instanceof Overloaded && tried.size < Math.min(MAX_SHARD_TRIES, layout.shards)) continue;
        throw error;
      }
      if ('sealed' in result) return result;
      if (!('refusedBy' in result)) return { slot, ...result, layout, key };
      full++;
      refusedBy.push(result.refusedBy);
      this.exhausted.remember(key, now, layout, shard, result.refusedBy);
    }
    const dayShares = refusedBy.length > 0 && refusedBy.every((w) => w === 'day');
    return { refusedBy: dayShares ? 'day' : this.exhausted.refusingWindow(key, now, layout) };
  }

  /** The key's estimated counts after the call, per window (exact with one shard): the layout's and those carried into it. */
  private totals({ key, layout, slot, minute, day }: Counted): [number, number] {
    const left = remaining(key, layout.carried, slot.minuteField);
    const carriedMinute = key.rate_limit_per_minute - left.minute;
    const carriedDay = key.rate_limit_per_day - left.day;
    return [
      Math.min(key.rate_limit_per_minute, carriedMinute + estimatedTotal(minute, slot.minuteLimit, left.minute)),
      Math.min(key.rate_limit_per_day, carriedDay + estimatedTotal(day, slot.dayLimit, left.day)),
    ];
  }

  private rateLimited(call: CallContext, windows: readonly RateWindow[], by: RateWindow['name'], now: number): RateLimited {
    call.rateLimit = rateState(
      windows,
      windows.map((w) => (w.name === by ? 'exhausted' : undefined)),
      now,
    );
    const exhausted = windows.find((x) => x.name === by)!;
    return new RateLimited(exhausted.name, secondsToReset(exhausted, now));
  }

  /** Add a batch of refusals from memory to the key's count in the usage rollup; a failed write keeps it for the next batch. */
  private async addRefusals(batch: RefusalCount | undefined, now: number): Promise<void> {
    if (!batch || !this.deps.rollups) return;
    try {
      const change = { org_id: batch.orgId, spread: `key#${batch.keyId}`, day: batch.day, kind: 'rate_limited' as const };
      const target = { key_id: batch.keyId, game_id: null, stream_id: null, count: batch.count };
      await this.deps.rollups.addRefusals({ ...change, ...target }, Math.floor(now / 1000) + (this.deps.auditRetentionDays + 1) * 86_400);
    } catch (error) {
      this.refusals.restore(batch, now);
      this.deps.onBackgroundError?.(error, 'refusal tally');
    }
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
