/**
 * The actions the audit log records, as the console offers them in its Action filter, and which of
 * them only read. An operation is recorded when its route writes to the audit table (`data.audit`
 * holds `PutItem` in its module of `shared/<feature>/routes/`); the delivery worker records
 * `disable-webhook` when it disables an endpoint; MCP requests are `mcp:<method>` and
 * `mcp:tools/call:<tool>`. The browser bundle does not import the routes table (it would carry
 * every operation's code): test/unit/console-audit-actions.test.ts holds these lists equal to it.
 */

/** The REST operations the audit log records, in the order the routes table lists them. */
export const ROUTE_AUDIT_ACTIONS = [
  'create-session',
  'revoke-session',
  'list-keys',
  'create-key',
  'update-key',
  'delete-key',
  'rotate-key',
  'list-webhooks',
  'create-webhook',
  'update-webhook',
  'delete-webhook',
  'rotate-webhook-secret',
  'list-webhook-deliveries',
  'retry-webhook-delivery',
  'test-webhook',
  'recover-webhook',
  'update-game',
  'update-stream',
] as const;

/** Every action the Action filter offers: the operations', the delivery worker's, and the MCP server's commonest. */
export const AUDIT_ACTIONS: readonly string[] = [
  ...ROUTE_AUDIT_ACTIONS,
  'disable-webhook',
  'mcp:initialize',
  'mcp:tools/list',
  'mcp:tools/call:create_session',
];

/**
 * The recorded operations that only read (the GET operations among them): `list-keys`, which the
 * console itself sends for every keys page and key picker, and `list-webhooks` and
 * `list-webhook-deliveries`, which it sends on the Webhooks pages. Reading the audit log, usage or
 * games is not recorded at all.
 */
export const READ_ACTIONS: ReadonlySet<string> = new Set(['list-keys', 'list-webhooks', 'list-webhook-deliveries']);
