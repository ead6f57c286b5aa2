/** An audit record as stored. */
import type { AuditDiff } from './audit-record.js';

/** A record of the audit log. */
export interface AuditRecord {
  readonly org_id: number;
  readonly at: string;
  /** The request's id as answered (its `x-request-id`: the caller's when valid). */
  readonly request_id: string;
  /**
   * The gateway's id of the request, where the caller chose `request_id`: unique, so it places the
   * record (`shared/audit/audit-store.ts`) and two requests sharing an `x-request-id` keep a record each.
   */
  readonly gateway_request_id?: string;
  readonly action: string;
  /** HTTP status of the outcome. */
  readonly status: number;
  readonly key_id: number | null;
  readonly key_prefix: string | null;
  /** Subject of the admin for key-management calls. */
  readonly actor: string | null;
  readonly game_id: number | null;
  readonly stream_id: number | null;
  /** The webhook endpoint of a webhook-management call; absent on other records. */
  readonly webhook_id?: number;
  /** First 8 characters of the token concerned; never the whole token. */
  readonly token_prefix: string | null;
  readonly source_ip: string;
  readonly user_agent: string;
  /** Key-management calls: the key properties the call set (e.g. `is_active` for a revoke). */
  readonly changes?: readonly string[] | null;
  /**
   * Updates (a key's, a game's or stream's, a rotated key's retirement): each field whose value
   * changed, before and after (`audit-record.ts`: `diffOf`). Absent on other records.
   */
  readonly diff?: AuditDiff | null;
  /**
   * A mint's whole token, stored only: the session report finds an org's tokens through the records
   * of its mints (`shared/usage/token-report-store.ts`). The audit log never returns it.
   */
  readonly minted_token?: string;
  /**
   * Where the store put it (`shared/audit/audit-store.ts`: its org's shard), once it has: a rewrite
   * with the real outcome goes to the same item. Not stored.
   */
  readonly shard?: number;
}
