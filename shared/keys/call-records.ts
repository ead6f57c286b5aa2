/**
 * What a metered call leaves behind besides its own effect: its audit record (written beside the
 * count with the outcome expected, corrected once the real one is known), the undo of a
 * speculative write that must not stand, and the refusals the usage report counts (a 403 or 429
 * audited). Every correction is a follow-up of a decided outcome: a failing one is reported, never
 * the call's answer.
 */
import { asFollowUp } from '../platform/time.js';
import {
  correctsDiff,
  type AuditDiff,
  type AuditRecord,
  type AuditStore,
  type RefusalKind,
  type UsageRollupStore,
} from '../audit/index.js';
import { errorStatus, statusOf } from '../platform/errors.js';

/** What a metered call did, for its audit record. */
export interface CallSubject {
  readonly action: string;
  readonly game_id?: number | null;
  readonly stream_id?: number | null;
  /** The webhook endpoint concerned (the MCP webhook tools). */
  readonly webhook_id?: number | null;
  readonly token?: string | null;
  /** The call mints `token` (its audit record then keeps it whole, for the session report). */
  readonly minted?: boolean;
  /** Updates: the fields the call sets. */
  readonly changes?: readonly string[];
  /** Updates: what the call is expected to change (`Effect.diff` corrects it). */
  readonly diff?: AuditDiff | null;
  /** The success status answered when it is not 200 (an MCP notification: 202): the record says it. */
  readonly answered?: number;
}

/**
 * The main write (or read) of a metered call. With an `undo` it is **speculative**: it runs in
 * parallel with the count, and is taken back when the call is refused after all. Only a write
 * nobody else can see or change before the outcome is known may be speculative (a brand-new token:
 * its id is returned only on success). A write of a shared item (a game's settings, a token's
 * revocation) has no `undo`: it runs only once the call has been counted, so a refused call never
 * touches it and no undo can overwrite someone else's write (SECURITY.md, "What may be speculative").
 */
export interface Effect<T> {
  run(): Promise<T>;
  /**
   * Take the write back. Called with the run's result, or with `undefined` when the run failed
   * without a verdict (a network error or timeout: it may have been applied, its answer lost), so
   * an undo must also be harmless when the run never applied.
   */
  undo?(result: T | undefined): Promise<void>;
  /** What the run's result says it changed: the call's audit record (its own item) is corrected to it. */
  diff?(result: T): AuditDiff;
}

/** What the records need: the audit log, the usage rollup (absent: refusals not counted) and where a failed follow-up is reported. */
export interface CallRecordsDeps {
  readonly audit: AuditStore;
  readonly rollups?: Pick<UsageRollupStore, 'addRefusals'> | undefined;
  readonly onBackgroundError?: ((error: unknown, what: string) => void) | undefined;
}

/** A metered call's audit record, its corrections and its undo. */
export class CallRecords {
  constructor(private readonly deps: CallRecordsDeps) {}

  /** A call that failed or was refused (by the rate limit too): speculative write undone, audit corrected. */
  async failed<T>(
    failure: unknown,
    record: AuditRecord,
    ttl: number,
    audited: PromiseSettledResult<AuditRecord>,
    effect: Effect<T> | undefined,
    done: PromiseSettledResult<T | undefined>,
    notice?: () => Promise<unknown>,
  ): Promise<unknown> {
    // Follow-ups of writes already made: they get their attempt even at the deadline.
    return asFollowUp(async () => {
      const fixes: [string, Promise<unknown>][] = [];
      // Beside the undo and the audit correction a refusal makes anyway: no stage of its own.
      if (notice) fixes.push(['rate-limit notice', notice()]);
      const undo = this.undoOf(effect, done);
      if (undo) fixes.push(undo);
      const status = statusOf(failure);
      if (status !== record.status || audited.status === 'rejected') fixes.push(this.correction(record, status, ttl));
      // The report's counts follow the record: the refusal it said is taken back, the one it now says added.
      if (status !== record.status) {
        fixes.push(['usage rollup', this.countRefusal(record, record.status, -1, ttl)]);
        fixes.push(['usage rollup', this.countRefusal(record, status, 1, ttl)]);
      }
      await this.compensate(fixes);
      return failure;
    });
  }

  /** The undo a failed call owes: a speculative write that applied, or may have (no verdict). */
  undoOf<T>(effect: Effect<T> | undefined, done: PromiseSettledResult<T | undefined>): [string, Promise<unknown>] | undefined {
    if (!effect?.undo) return undefined;
    if (done.status === 'fulfilled') return ['compensation: undo', effect.undo(done.value)];
    // A run that failed with an error no domain rule explains may have been applied: undo it too.
    return statusOf(done.reason) === 500 ? ['compensation: undo', effect.undo(undefined)] : undefined;
  }

  correction(record: AuditRecord, status: number, ttl: number): [string, Promise<unknown>] {
    // Should this fail too, the record may still say 200: the log line names the request and the real outcome.
    const what = `compensation: audit record of request ${record.request_id} must say ${status}`;
    return [what, this.deps.audit.put({ ...record, status }, ttl)];
  }

  /**
   * After a success: the record written again if its first write failed, and with the write's own
   * diff when that says otherwise (`correctsDiff`).
   */
  async success(placed: AuditRecord, ttl: number, rewrite: boolean, real: AuditDiff | undefined): Promise<void> {
    const corrects = correctsDiff(real, placed.diff);
    const what = rewrite ? 'audit record' : `compensation: diff of audit record ${placed.request_id}`;
    if (rewrite || corrects)
      await asFollowUp(() => this.compensate([[what, this.deps.audit.put(corrects ? { ...placed, diff: real } : placed, ttl)]]));
  }

  /** Run compensations in parallel; the call's outcome is decided, so a failing one is only reported. */
  async compensate(fixes: readonly [string, Promise<unknown>][]): Promise<void> {
    const settled = await Promise.allSettled(fixes.map(([, p]) => p));
    settled.forEach((r, i) => r.status === 'rejected' && this.deps.onBackgroundError?.(r.reason, fixes[i]![0]));
  }

  /**
   * Count `count` of an audited call's refusal (a 403 or 429 `status`; any other counts nothing) in
   * the usage rollup, on its day, key and target. `quiet`: a failure is reported, never thrown (the
   * first count runs beside the call's own writes and must not fail it; a correction's is reported
   * by `compensate`).
   */
  async countRefusal(record: AuditRecord, status: number, count: number, ttl: number, quiet = false): Promise<void> {
    const kind: RefusalKind | undefined =
      status === errorStatus.RateLimited ? 'rate_limited' : status === errorStatus.Forbidden ? 'forbidden' : undefined;
    if (!kind || !this.deps.rollups || record.key_id === null) return;
    const change = {
      org_id: record.org_id,
      // The record's own shard (its request's unique id: a shared `x-request-id` must not heat one partition).
      spread: record.gateway_request_id ?? record.request_id,
      day: record.at.slice(0, 10),
      kind,
      key_id: record.key_id,
      game_id: record.game_id ?? null,
      stream_id: record.stream_id ?? null,
      count,
    };
    if (!quiet) return this.deps.rollups.addRefusals(change, ttl);
    try {
      await this.deps.rollups.addRefusals(change, ttl);
    } catch (error) {
      this.deps.onBackgroundError?.(error, 'usage rollup');
    }
  }
}
