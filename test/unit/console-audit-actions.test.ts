/**
 * The console's audit actions (its Action filter's choices, and which of them are reads that
 * "Show reads too" hides) are the routes table's: every operation whose route writes an audit
 * record, in the table's order, and the reads among them are its GET operations.
 */
import { describe, expect, test } from '@jest/globals';
import { AUDIT_ACTIONS, READ_ACTIONS, ROUTE_AUDIT_ACTIONS } from '../../infra/console/parts/audit-actions.js';
import { routes } from '../../shared/routes.js';
import type { RouteDefinition } from '../../shared/platform/route.js';

/** The REST operations that write an audit record (the MCP endpoint's records are named per method, `mcp:…`). */
const audited = (routes as readonly RouteDefinition[]).filter(
  (route) => route.operation !== 'mcp' && (route.data as { audit?: readonly string[] }).audit?.includes('PutItem'),
);

describe('the console’s audit actions', () => {
  test('the Action filter offers every audited operation of the routes table, by its name', () => {
    expect([...ROUTE_AUDIT_ACTIONS]).toEqual(audited.map((route) => route.action ?? route.operation));
    expect(AUDIT_ACTIONS).toEqual(expect.arrayContaining(['update-key', 'disable-webhook', 'mcp:tools/call:create_session']));
    expect(AUDIT_ACTIONS).not.toContain('update_key');
  });

  test('the reads are the audited GET operations: list-keys, list-webhooks, list-webhook-deliveries', () => {
    expect(new Set(READ_ACTIONS)).toEqual(
      new Set(audited.filter((route) => route.method === 'GET').map((route) => route.action ?? route.operation)),
    );
  });
});
