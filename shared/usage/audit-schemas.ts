/** Request and response of the audit-log operation (org admins, bearer). */
import * as z from 'zod/mini';
import { Id, QueryId, Timestamp, withMeta } from '../platform/schemas.js';
import { FieldChange } from '../audit/index.js';

/** Records per page when `limit` is not given, and the most a page may hold. */
const AUDIT_PAGE = { default: 50, max: 100 } as const;

/** `limit` as the query string gives it: digits, then the page bounds. */
const PageSize = z.pipe(
  z.pipe(z.string().check(z.regex(/^[0-9]{1,4}$/, `must be an integer from 1 to ${AUDIT_PAGE.max}`)), z.transform(Number)),
  z.int().check(z.minimum(1), z.maximum(AUDIT_PAGE.max)),
);

export const AuditLogQuery = z.object({
  org_id: QueryId,
  key_id: withMeta(z.optional(QueryId), { description: 'Only records of this key.' }),
  audit_action: withMeta(z.optional(z.string().check(z.regex(/^[a-z][a-z0-9_:/-]{0,127}$/, 'must be an action name'))), {
    description: 'Only records of this action (`create-session`, `update-key`, `update-game`, `mcp:tools/call:create_session`…).',
    example: 'update-key',
  }),
  outcome: withMeta(z.optional(z.enum(['success', 'refused'])), {
    description: 'Only successes (status below 400) or only refusals (status 400 and above).',
  }),
  cursor: withMeta(z.optional(z.string().check(z.minLength(1), z.maxLength(2048))), { description: '`next_cursor` of the previous page.' }),
  limit: withMeta(
    z.pipe(
      z.optional(PageSize),
      z.transform((v) => v ?? AUDIT_PAGE.default),
    ),
    { description: `Records per page, 1 to ${AUDIT_PAGE.max} (default ${AUDIT_PAGE.default}).` },
  ),
});

const AuditEntry = withMeta(
  z.object({
    org_id: Id,
    at: Timestamp,
    request_id: z.string(),
    action: withMeta(z.string(), { example: 'create-session' }),
    status: withMeta(z.int(), { description: 'HTTP status of the outcome.' }),
    key_id: z.nullable(Id),
    key_prefix: z.nullable(z.string()),
    actor: withMeta(z.nullable(z.string()), { description: 'Subject (JWT `sub`) of the admin, for key-management calls.' }),
    game_id: z.nullable(Id),
    stream_id: z.nullable(Id),
    webhook_id: withMeta(z.nullable(Id), { description: 'The webhook endpoint of a webhook-management call (`create-webhook`, ...).' }),
    token_prefix: withMeta(z.nullable(z.string()), { description: 'First 8 characters of the session token concerned.' }),
    source_ip: z.string(),
    user_agent: z.string(),
    changes: withMeta(z.nullable(z.array(z.string())), { description: 'Key properties an update set.' }),
    diff: withMeta(z.nullable(z.record(z.string(), FieldChange)), {
      description:
        'Updates (`update-key`, `update-game`, `update-stream`, the old key of `rotate-key`): each field whose value ' +
        'changed, with its value before and after. Null on other records and on records written before it existed.',
      example: { is_active: { before: true, after: false } },
    }),
  }),
  { id: 'AuditRecord' },
);

export const AuditLogPage = withMeta(z.object({ records: z.array(AuditEntry), next_cursor: z.nullable(z.string()) }), {
  id: 'AuditLogPage',
});
