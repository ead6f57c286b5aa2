import type { AdminIdentity } from '../platform/bearer.js';
import { asFollowUp, type Clock } from '../platform/time.js';
import { correctsDiff, type AuditDiff, auditRecord, type AuditedKey } from './audit-record.js';
import { statusOf } from '../platform/errors.js';
import type { CallContext } from '../platform/call.js';
import type { AuditStore } from './ports.js';

/** One authorized admin call, as its audit record names it. */
export interface AdminCall {
  readonly admin: AdminIdentity;
  readonly orgId: number;
  readonly call: CallContext;
  readonly action: string;
}

/** What an admin call's record says it was about and what it set. */
export interface AdminSubject {
  readonly key?: AuditedKey | null;
  readonly game_id?: number | null;
  readonly stream_id?: number | null;
  readonly webhook_id?: number | null;
  /** The properties the call set; null when it set none. */
  readonly changes?: readonly string[] | null;
  /** What the call changed, before and after, as far as it is known when the record is written. */
  readonly diff?: AuditDiff | null;
}

export interface AdminAuditDeps {
  readonly audit: AuditStore;
  readonly clock: Clock;
  readonly auditRetentionDays: number;
  /** Reports a failure that must not fail the call (an audit write after the change took effect). */
  readonly onBackgroundError?: (error: unknown, what: string) => void;
}

/**
 * The audit records of org members' calls (key management, game and stream settings): the member's
 * subject as actor, written together with the call's write (one round trip for both), rewritten
 * with the real outcome when the write fails, and with the real changes when they turn out other
 * than the record said (a read that lagged: `diff`).
 */
export class AdminAudit {
  constructor(private readonly deps: AdminAuditDeps) {}

  /**
   * Perform an authorized call's write together with its audit record. When the write fails, the
   * record is rewritten with the real outcome. When only the audit write fails, the change has
   * already taken effect, so the call still succeeds and the failure is reported (logged as an error).
   * @param realDiff what the write's result says it changed, when it can say (undefined: as recorded)
   */
  async audited<T>(
    adminCall: AdminCall,
    subject: AdminSubject,
    write: () => Promise<T>,
    realDiff?: (done: T) => AuditDiff | undefined,
  ): Promise<T> {
    const { record, ttl } = this.record(adminCall, subject, 200);
    const [done, audited] = await Promise.allSettled([write(), this.deps.audit.put(record, ttl)]);
    // The same record (same time and request id, where the first write put it) for any rewrite.
    const placed = audited.status === 'fulfilled' ? audited.value : record;
    if (done.status === 'fulfilled') {
      if (audited.status === 'rejected') this.deps.onBackgroundError?.(audited.reason, 'audit record');
      const diff = realDiff?.(done.value);
      if (audited.status === 'fulfilled' && correctsDiff(diff, record.diff)) {
        await asFollowUp(() => this.reportFailure(this.deps.audit.put({ ...placed, diff }, ttl)));
      }
      return done.value;
    }
    // A correction of a record already written: it gets its attempt even at the deadline.
    await asFollowUp(() => this.reportFailure(this.deps.audit.put({ ...placed, status: statusOf(done.reason) }, ttl)));
    throw done.reason;
  }

  /** Write the audit record of a call that changes nothing (a list, a 404). */
  async note(adminCall: AdminCall, status: number, subject: AdminSubject = {}): Promise<void> {
    const { record, ttl } = this.record(adminCall, { changes: null, ...subject }, status);
    await this.reportFailure(this.deps.audit.put(record, ttl));
  }

  /** An audit write that must not change the call's answer: its failure is only reported. */
  private async reportFailure(write: Promise<unknown>): Promise<void> {
    try {
      await write;
    } catch (error) {
      this.deps.onBackgroundError?.(error, 'audit record');
    }
  }

  /** The record of an admin call: the admin as its actor, `changes` null when it set nothing. */
  private record(adminCall: AdminCall, subject: AdminSubject, status: number): ReturnType<typeof auditRecord> {
    const { orgId, action } = adminCall;
    const full = { orgId, action, key: null, changes: null, ...subject, actor: adminCall.admin.subject };
    return auditRecord(adminCall.call, full, status, this.deps.clock.now(), this.deps.auditRetentionDays);
  }
}
