/**
 * The `data` of the key-management rows of THE routes table is exact (it becomes the functions' IAM
 * policies): every DynamoDB action a call performs is declared, and every declared one is used.
 * Each call also needs at most two sequential round trips (membership and org are read alongside
 * the operation's first read; a new key is written in one transaction with a check of its org's
 * tier: shared/keys/org-tiers.ts). A rotation reads the old key through its id item, then the key
 * itself (a third): it copies the key's settings, which must be
 * the key as it is, and the `by_org` index that once served this read in one round trip is only
 * eventually consistent (a key just created or changed could be missed or copied stale:
 * shared/keys/key-id-items.ts, test/integration/keys-index-lag.test.ts).
 */
import { afterAll, beforeAll, describe, expect, test } from '@jest/globals';
import { routes } from '../../shared/routes.js';
import type { DataAccess } from '../../shared/platform/route.js';
import { adminApi, type AdminApi } from '../support/admin-api.js';
import { startStack, type Stack } from '../support/local-stack.js';
import { logicalTableName } from '../../infra/local/table-names.js';

let stack: Stack;
let admin: AdminApi;

/** What the DynamoDB client did during one call: actions per table, and the depth of sequential round trips. */
interface Trace {
  actions: Set<string>;
  stages: number;
}
let trace: Trace = { actions: new Set(), stages: 0 };
let completedStage = 0;
/** `table:Action` of the next call to fail (an injected fault the code cannot explain: a 500). */
let failNext: string | undefined;
/** Something to do, untraced, right after the next `table:Action` call (that `matches`) completed (an interleaving). */
let afterNext:
  | { readonly call: string; readonly matches?: (input: Record<string, unknown>) => boolean; readonly run: () => Promise<unknown> }
  | undefined;
let tracing = true;

/** Document-client command names to IAM action names (low-level names only lose `Command`). */
const ACTION_OF: Record<string, string> = {
  Get: 'GetItem',
  Put: 'PutItem',
  Update: 'UpdateItem',
  Delete: 'DeleteItem',
  BatchGet: 'BatchGetItem',
  ConditionCheck: 'ConditionCheckItem',
};

/** `table:Action` of each item of a call, as IAM allows it: a transaction's items one by one. */
function actionsOf(name: string, input: { TableName?: string; TransactItems?: Record<string, { TableName: string }>[] }): string[] {
  if (!input.TransactItems) return [`${logicalTableName(input.TableName ?? '')}:${ACTION_OF[name] ?? name}`];
  return input.TransactItems.flatMap((item) =>
    Object.entries(item).map(([kind, op]) => `${logicalTableName(op.TableName)}:${ACTION_OF[kind]}`),
  );
}

beforeAll(async () => {
  // It records (or injects faults into) every call of the service's client: the workers' are not this request's.
  stack = await startStack({ workers: false });
  admin = adminApi(stack);
  stack.services.client.middlewareStack.add(
    (next, context) => async (args) => {
      const input = args.input as Parameters<typeof actionsOf>[1];
      const command = (context as { commandName?: string }).commandName ?? '';
      const name = command.replace(/Command$/, '');
      if (!tracing) return next(args);
      const actions = actionsOf(name, input);
      actions.forEach((a) => trace.actions.add(a));
      // A call's stage is one more than the deepest round trip finished before it started.
      const stage = completedStage + 1;
      trace.stages = Math.max(trace.stages, stage);
      if (failNext !== undefined && actions.includes(failNext)) {
        failNext = undefined;
        completedStage = Math.max(completedStage, stage);
        throw Object.assign(new Error('injected fault'), { name: 'InjectedFault' });
      }
      try {
        return await next(args);
      } finally {
        completedStage = Math.max(completedStage, stage);
        const after = afterNext;
        if (after && actions.includes(after.call) && (after.matches?.(input as Record<string, unknown>) ?? true)) {
          afterNext = undefined;
          tracing = false;
          await after.run().finally(() => (tracing = true));
        }
      }
    },
    { step: 'initialize', name: 'traceForTest' },
  );
});
afterAll(() => stack.stop());

async function traced(run: () => Promise<{ status: number }>, status: number): Promise<Trace> {
  trace = { actions: new Set(), stages: 0 };
  completedStage = 0;
  const res = await run();
  expect(res.status).toBe(status);
  // A copy: the calls a test makes afterwards (a list to check the outcome) are not this call's.
  return { actions: new Set(trace.actions), stages: trace.stages };
}

function declared(operation: string): Set<string> {
  const data = routes.find((r) => r.operation === operation)!.data as DataAccess;
  return new Set(Object.entries(data).flatMap(([table, actions]) => (actions ?? []).map((a) => `${table}:${a}`)));
}

type Reply = Awaited<ReturnType<AdminApi['list']>>;
const newKeyId = async () => (await admin.create({ org_id: 1, name: 'target' })).body.data.id as number;

const cases: [string, string, (() => Promise<number>) | null, (id: number) => Promise<Reply>, number][] = [
  ['list-keys', 'list', null, () => admin.list(1), 200],
  ['create-key', 'create', null, () => admin.create({ org_id: 1, name: 'traced' }), 200],
  ['update-key', 'revoke', newKeyId, (id) => admin.update({ id, org_id: 1, is_active: false }), 200],
  ['update-key', 'unknown id', null, () => admin.update({ id: 987_654, org_id: 1, is_active: false }), 404],
  ['delete-key', 'delete', newKeyId, (id) => admin.remove(id, 1), 200],
  ['delete-key', 'unknown id', null, () => admin.remove(987_654, 1), 404],
  ['rotate-key', 'rotate', newKeyId, (id) => admin.rotate({ id, org_id: 1, grace_period_minutes: 5 }), 200],
  ['rotate-key', 'unknown id', null, () => admin.rotate({ id: 987_654, org_id: 1, grace_period_minutes: 5 }), 404],
  ['audit-log', 'org', null, () => admin.audit({ org_id: 1, limit: 5 }), 200],
  ['audit-log', 'one key', null, () => admin.audit({ org_id: 1, key_id: 1 }), 200],
];

describe('data access and round trips of key management', () => {
  const used = new Map<string, Set<string>>();

  test.each(cases)(
    '%s (%s): only declared actions, at most two sequential round trips (three for a rotation)',
    async (operation, _case, setup, call, status) => {
      const id = setup ? await setup() : 0;
      const t = await traced(() => call(id), status);
      const allowed = declared(operation);
      for (const action of t.actions) expect(allowed).toContain(action);
      expect(t.stages).toBeGreaterThanOrEqual(1);
      expect(t.stages).toBeLessThanOrEqual(operation === 'rotate-key' ? 3 : 2);
      const seen = used.get(operation) ?? new Set<string>();
      t.actions.forEach((a) => seen.add(a));
      used.set(operation, seen);
    },
  );

  test('rotate-key whose old-key write fails: the new key is deleted again (only declared actions)', async () => {
    const id = await newKeyId();
    const before = (await admin.list(1)).body.data.length;
    failNext = 'keys:UpdateItem';
    const t = await traced(() => admin.rotate({ id, org_id: 1, grace_period_minutes: 5 }), 500);
    for (const action of t.actions) expect(declared('rotate-key')).toContain(action);
    // The compensation and the audit rewrite add stages on this failure path only.
    expect(t.actions).toContain('keys:DeleteItem');
    const listed = (await admin.list(1)).body.data as { id: number; rotated_to: number | null }[];
    expect(listed).toHaveLength(before);
    expect(listed.find((k) => k.id === id)?.rotated_to).toBeNull();
    const seen = used.get('rotate-key') ?? new Set<string>();
    t.actions.forEach((a) => seen.add(a));
    used.set('rotate-key', seen);
  });

  test('create-key whose write fails: nothing is stored (one transaction: no take-back), the call fails (only declared actions)', async () => {
    const before = (await admin.list(1)).body.data.length;
    // The key and its id item are the transaction's keys PutItems.
    failNext = 'keys:PutItem';
    const t = await traced(() => admin.create({ org_id: 1, name: 'half made' }), 500);
    for (const action of t.actions) expect(declared('create-key')).toContain(action);
    expect(t.actions).not.toContain('keys:DeleteItem');
    expect((await admin.list(1)).body.data).toHaveLength(before);
    const seen = used.get('create-key') ?? new Set<string>();
    t.actions.forEach((a) => seen.add(a));
    used.set('create-key', seen);
  });

  test('delete-key whose transaction fails: nothing changed, so the key can still be deleted by id (only declared actions)', async () => {
    const id = await newKeyId();
    // The key item's delete and its id item's tombstone are one transaction: it fails whole.
    failNext = 'keys:DeleteItem';
    const t = await traced(() => admin.remove(id, 1), 500);
    for (const action of t.actions) expect(declared('delete-key')).toContain(action);
    expect(t.actions).toContain('keys:PutItem');
    expect((await admin.remove(id, 1)).status).toBe(200);
    const seen = used.get('delete-key') ?? new Set<string>();
    t.actions.forEach((a) => seen.add(a));
    used.set('delete-key', seen);
  });

  test('create-key while the org’s tier changes: the check refuses the first write, the key is written again with the new tier (only declared actions)', async () => {
    let version = 0;
    // Right after the authorization read the org (the org item's GetItem), its tier changes.
    afterNext = {
      call: 'catalog:GetItem',
      matches: (input) => (input.Key as { sk?: string } | undefined)?.sk === 'ORG',
      run: async () => (version = (await stack.services.stores.catalog.setOrgTier(1, 'business')).version),
    };
    trace = { actions: new Set(), stages: 0 };
    completedStage = 0;
    const res = await admin.create({ org_id: 1, name: 'raced' });
    expect(res.status).toBe(200);
    const t = { actions: new Set(trace.actions), stages: trace.stages };
    for (const action of t.actions) expect(declared('create-key')).toContain(action);
    expect(t.actions).toContain('catalog:ConditionCheckItem');
    // The refused transaction (the org returned with its refusal), the transaction again.
    expect(t.stages).toBe(3);
    const stored = (await admin.list(1)).body.data.find((k: { id: number }) => k.id === res.body.data.id);
    expect(stored).toBeDefined();
    expect(await stack.services.stores.keys.findInOrg(1, res.body.data.id)).toMatchObject({ org_tier_version: version });
    const seen = used.get('create-key') ?? new Set<string>();
    t.actions.forEach((a) => seen.add(a));
    used.set('create-key', seen);
  });

  test('every declared action is used by its operation (no spare permissions)', () => {
    for (const operation of ['list-keys', 'create-key', 'update-key', 'delete-key', 'rotate-key', 'audit-log']) {
      expect([...(used.get(operation) ?? [])].sort()).toEqual([...declared(operation)].sort());
    }
  });

  test('the OpenAPI document needs no data access', () => {
    expect(routes.find((r) => r.operation === 'openapi')!.data).toEqual({});
  });
});
