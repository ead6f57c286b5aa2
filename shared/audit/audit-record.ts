/**
 * An audit record as every feature builds it ({@link auditRecord}), and what an update changed, as
 * the record keeps it ({@link diffOf}): for each field whose value differs, the value before and
 * after. Only the fields an update may set are compared (a key's hash or raw key never is one), so a
 * record never carries a secret.
 */
import type * as z from 'zod/mini';
import type { FieldChange as FieldChangeSchema, FieldValue as FieldValueSchema } from './schemas.js';
import { isoTime } from '../platform/time.js';
import { uniqueRequestId, type CallContext } from '../platform/call.js';
import { type AuditRecord } from './model.js';

/** A changed field's value. */
type FieldValue = z.output<typeof FieldValueSchema>;
/** One field's change (the audit log's schema). */
export type FieldChange = Readonly<z.output<typeof FieldChangeSchema>>;

/** The changes of one update, by field; only fields whose value changed. */
export type AuditDiff = Readonly<Record<string, FieldChange>>;

/**
 * The fields of `fields` whose value differs between `before` and `after` (compared as JSON, so two
 * equal lists are equal; an absent value reads as null).
 */
export function diffOf<T extends object>(before: T, after: T, fields: readonly (keyof T & string)[]): AuditDiff {
  const diff: Record<string, FieldChange> = {};
  for (const field of fields) {
    const was = before[field] ?? null;
    const is = after[field] ?? null;
    // The fields compared are an update's settable ones, each a FieldValue (the schemas of those updates say so).
    if (JSON.stringify(was) !== JSON.stringify(is)) diff[field] = { before: was as FieldValue, after: is as FieldValue };
  }
  return diff;
}

/**
 * Whether a write's own diff should replace the one its audit record holds: it says otherwise, and it
 * is not empty. An empty one is not trusted over the record's: a write repeated after a lost answer
 * reads its own first application as "before" (a true no-op change is rare enough to keep).
 */
export function correctsDiff(real: AuditDiff | undefined, recorded: AuditDiff | null | undefined): real is AuditDiff {
  return real !== undefined && Object.keys(real).length > 0 && JSON.stringify(real) !== JSON.stringify(recorded ?? null);
}

/** The key an audit record names: its prefix unknown when no key with that id was found. */
export type AuditedKey = { readonly id: number; readonly key_prefix: string | null };

/** What one call's audit record says beyond the call itself (who sent it, from where) and its outcome. */
interface AuditSubject {
  readonly orgId: number;
  readonly action: string;
  readonly key: AuditedKey | null;
  /** The admin's subject, for key-management calls. */
  readonly actor?: string | null;
  readonly game_id?: number | null;
  readonly stream_id?: number | null;
  /** The webhook endpoint concerned (its management calls). */
  readonly webhook_id?: number | null;
  /** The token concerned: the record keeps its first 8 characters. */
  readonly token?: string | null;
  /** The call mints `token`: the record then keeps it whole too, for the session report. */
  readonly minted?: boolean;
  /** Key-management calls: the key properties the call set; absent on metered calls. */
  readonly changes?: readonly string[] | null;
  /** Updates: what changed, before and after. */
  readonly diff?: AuditDiff | null;
}

/**
 * The audit record of a call that ended with `status` at `now`, and its expiry (epoch seconds,
 * `retentionDays` later): the one place both key management (`key-admin.ts`) and metered key calls
 * (`key-calls.ts`) build theirs.
 */
export function auditRecord(
  call: CallContext,
  subject: AuditSubject,
  status: number,
  now: number,
  retentionDays: number,
): { record: AuditRecord; ttl: number } {
  const { key, token } = subject;
  const record: AuditRecord = {
    org_id: subject.orgId,
    at: isoTime(now),
    request_id: call.requestId,
    // Where the caller chose the id: the gateway's too, which places the record (unique per request).
    ...(uniqueRequestId(call) !== call.requestId && { gateway_request_id: uniqueRequestId(call) }),
    action: subject.action,
    status,
    key_id: key?.id ?? null,
    key_prefix: key?.key_prefix ?? null,
    actor: subject.actor ?? null,
    game_id: subject.game_id ?? null,
    stream_id: subject.stream_id ?? null,
    token_prefix: token ? token.slice(0, 8) : null,
    ...(subject.minted && token && { minted_token: token }),
    source_ip: call.sourceIp,
    user_agent: call.userAgent,
    // Absent, not null, where the call changes no key property by nature (a metered call).
    ...(subject.changes !== undefined && { changes: subject.changes }),
    ...(subject.diff != null && { diff: subject.diff }),
    ...(subject.webhook_id != null && { webhook_id: subject.webhook_id }),
  };
  return { record, ttl: Math.floor(now / 1000) + retentionDays * 86_400 };
}
