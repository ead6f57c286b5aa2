/** Request and response of the audit-log operation (org admins, bearer). */
import * as z from 'zod';
import { Id, QueryId, Timestamp } from './common.js';

/** Records per page when `limit` is not given, and the most a page may hold. */
export const AUDIT_PAGE = { default: 50, max: 100 } as const;

export const AuditLogQuery = z.object({
  org_id: QueryId,
  key_id: QueryId.optional().meta({ description: 'Only records of this key.' }),
  cursor: z.string().min(1).max(2048).optional().meta({ description: '`next_cursor` of the previous page.' }),
  limit: z
    .string()
    .regex(/^[0-9]{1,4}$/, `must be an integer from 1 to ${AUDIT_PAGE.max}`)
    .transform(Number)
    .pipe(z.int().min(1).max(AUDIT_PAGE.max))
    .optional()
    .transform((v) => v ?? AUDIT_PAGE.default)
    .meta({ description: `Records per page, 1 to ${AUDIT_PAGE.max} (default ${AUDIT_PAGE.default}).` }),
});

export const AuditEntry = z
  .object({
    org_id: Id,
    at: Timestamp,
    request_id: z.string(),
    action: z.string().meta({ example: 'create-session' }),
    status: z.int().meta({ description: 'HTTP status of the outcome.' }),
    key_id: Id.nullable(),
    key_prefix: z.string().nullable(),
    actor: z.string().nullable().meta({ description: 'Subject (JWT `sub`) of the admin, for key-management calls.' }),
    game_id: Id.nullable(),
    stream_id: Id.nullable(),
    token_prefix: z.string().nullable().meta({ description: 'First 8 characters of the session token concerned.' }),
    source_ip: z.string(),
    user_agent: z.string(),
    changes: z.array(z.string()).nullable().meta({ description: 'Key properties an update set.' }),
  })
  .meta({ id: 'AuditRecord' });

export const AuditLogPage = z.object({ records: z.array(AuditEntry), next_cursor: z.string().nullable() }).meta({ id: 'AuditLogPage' });
