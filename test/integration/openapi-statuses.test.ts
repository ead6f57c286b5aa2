/**
 * The OpenAPI document lists every status an operation answers: for each operation, representative
 * requests (a success and the refusals the other suites exercise: test/support/operation-cases.ts)
 * must answer what they are meant to, and that status must be in the operation's documented
 * responses. Every operation that declares DynamoDB access is also driven into 503 (`overloaded`:
 * every attempt of its first DynamoDB call throttled), which its entry must list too. A status
 * answered but not documented fails here, so the document cannot fall behind the code again
 * (a route documented as 200 without a body while it answers 204, 400, 403, 404 is caught).
 */
import { afterAll, beforeAll, describe, expect, test } from '@jest/globals';
import { routes } from '../../shared/routes.js';
import { buildDocument } from '../../infra/openapi-document.js';
import { adminApi } from '../support/admin-api.js';
import { FaultInjector } from '../support/faults.js';
import { createTestKey, UNLIMITED } from '../support/keys.js';
import { startStack, type Stack } from '../support/local-stack.js';
import { TOOL_SCOPES } from '../support/mcp.js';
import { operationCases, type Case } from '../support/operation-cases.js';
import { partner } from '../support/play-pages.js';
import { stopAll } from '../support/teardown.js';

let stack: Stack;
let faults: FaultInjector;
let cases: readonly Case[] = [];
beforeAll(async () => {
  // It records (or injects faults into) every call of the service's client: the workers' are not this request's.
  stack = await startStack({ workers: false });
  faults = new FaultInjector(stack.services.client);
  cases = operationCases({
    stack,
    admin: adminApi(stack),
    key: await createTestKey(stack, UNLIMITED),
    mcpKey: await createTestKey(stack, { ...UNLIMITED, mcp_scopes: TOOL_SCOPES }),
    limitedKey: await createTestKey(stack, { rate_limit_per_minute: 1 }),
    acme: await partner(stack),
  });
});
afterAll(() => stopAll(() => stack?.stop()));

/** Every documented status of every operation, by operationId. */
const documented = new Map<string, string[]>(
  Object.values(buildDocument().paths ?? {}).flatMap((item) =>
    Object.values(item as Record<string, { operationId: string; responses: Record<string, unknown> }>).map((op) => [
      op.operationId,
      Object.keys(op.responses),
    ]),
  ),
);

/** The cases of one operation (the table is built once the stack runs). */
const casesOf = (operation: string) => cases.filter(([name]) => name === operation);

describe('every status an operation answers is in its OpenAPI entry', () => {
  test('the cases drive every operation of the routes table', () => {
    expect([...new Set(cases.map(([operation]) => operation))].sort()).toEqual(routes.map((r) => r.operation).sort());
  });

  test.each(routes.map((route) => route.operation))('%s: each case answers its status, and the status is documented', async (operation) => {
    const answers: string[] = [];
    for (const [, label, expected, prepare] of casesOf(operation)) {
      const answered = await (await prepare())();
      answers.push(`${label}: ${answered}`);
      expect({ operation, label, answered, documented: documented.get(operation)?.includes(String(answered)) }).toEqual({
        operation,
        label,
        answered: expected,
        documented: true,
      });
    }
    expect(answers.length).toBeGreaterThan(0);
  });

  const withData = routes.filter((route) => Object.keys(route.data).length > 0).map((route) => route.operation);
  test.each(withData)('%s, its first DynamoDB call throttled past the retries: 503, documented', async (operation) => {
    const [, , , prepare] = casesOf(operation)[0]!;
    const send = await prepare();
    faults.arm({ kind: 'throttle', call: 0, persistent: true });
    let answered: number;
    try {
      answered = await send();
    } finally {
      faults.disarm();
    }
    expect({ operation, answered, documented: documented.get(operation)?.includes('503') }).toEqual({
      operation,
      answered: 503,
      documented: true,
    });
  });
});
