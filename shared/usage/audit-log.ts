import type { AdminIdentity } from '../platform/bearer.js';
import type { AdminAccess } from '../catalog/index.js';
import type * as z from 'zod/mini';
import type { Frozen } from '../platform/route.js';
import type { AuditLogPage as AuditLogPageSchema } from './audit-schemas.js';
import type { AuditRecord } from '../audit/index.js';
import type { AuditQuery, AuditReader } from '../audit/index.js';

/** A page of the audit log as the operation returns it (its schema's shape). */
export type AuditLogPage = Frozen<z.output<typeof AuditLogPageSchema>>;
/** One record as the audit-log operation returns it. */
type AuditEntry = AuditLogPage['records'][number];

/**
 * The audit log as org admins read it: their organization's records (key usage, key management,
 * game and stream settings), newest first, optionally of one key, one action and one outcome, in
 * cursor pages. Reading the log is not itself recorded, so
 * the log is not filled with its own reads.
 */
export class AuditLog {
  constructor(private readonly deps: { readonly access: AdminAccess; readonly reader: AuditReader }) {}

  /** One page of an organization's log. @throws Forbidden, TierRequired, InvalidInput (cursor) */
  async read(admin: AdminIdentity, query: AuditQuery): Promise<AuditLogPage> {
    const { value: page } = await this.deps.access.authorize(admin, query.org_id, () => this.deps.reader.page(query));
    return { records: page.records.map(auditEntry), next_cursor: page.cursor };
  }
}

/** A stored record in the log's public shape (absent optional fields read as null). */
function auditEntry(record: AuditRecord): AuditEntry {
  return {
    org_id: record.org_id,
    at: record.at,
    request_id: record.request_id,
    action: record.action,
    status: record.status,
    key_id: record.key_id ?? null,
    key_prefix: record.key_prefix ?? null,
    actor: record.actor ?? null,
    game_id: record.game_id ?? null,
    stream_id: record.stream_id ?? null,
    webhook_id: record.webhook_id ?? null,
    token_prefix: record.token_prefix ?? null,
    source_ip: record.source_ip,
    user_agent: record.user_agent,
    changes: record.changes ?? null,
    diff: record.diff ?? null,
  };
}
