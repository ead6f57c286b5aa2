/**
 * Fault injection at the store boundary, for key management (list, create, update, delete) and the
 * audit log: each DynamoDB call they make fails in turn, every fault kind, on its first attempt only
 * and on every attempt (`test/support/fault-matrix.ts`). After each faulted request the keys are
 * read back. Invariants: the client gets the answer it would have had, or a 5xx envelope (503 with
 * Retry-After when throttled); a key the client was told about exists and works, a revoked or
 * deleted one stops at once, at most one record nobody holds is left by a lost answer; the audit
 * never claims an outcome other than the one the client was given.
 */
import { describe, expect, test } from '@jest/globals';
import { useFaultRun, type Operation } from '../support/fault-matrix.js';
import type { TestKey } from '../support/keys.js';

const run = useFaultRun('faults-keys');
const { api } = run;

const operations: Operation<any>[] = [
  {
    name: 'list-keys',
    baseline: 200,
    org: 1,
    setup: async () => undefined,
    run: () => run.admin.list(1),
    check: async () => undefined,
  },
  {
    name: 'create-key',
    baseline: 200,
    org: 1,
    setup: async () => (await run.admin.list(1)).body.data.length as number,
    run: () => run.admin.create({ org_id: 1, name: 'fault test' }),
    check: async (before: number, { reply }) => {
      const after = (await run.admin.list(1)).body.data.length as number;
      if (reply.status === 200) {
        expect(after).toBe(before + 1);
        expect((await api({ raw: reply.body.data.key } as TestKey).create({ game_id: 101 })).status).toBe(200);
      } else {
        // At most one record nobody holds (the write applied, every answer lost); the audit says it failed.
        expect(after - before).toBeLessThanOrEqual(1);
      }
    },
  },
  {
    name: 'update-key (revoke)',
    baseline: 200,
    org: 1,
    setup: async () => (await run.admin.create({ org_id: 1, name: 'to revoke' })).body.data,
    run: (created) => run.admin.update({ id: created.id, org_id: 1, is_active: false }),
    check: async (created, { reply }) => {
      const works = (await api({ raw: created.key } as TestKey).create({ game_id: 101 })).status;
      if (reply.status === 200) expect(works).toBe(401);
      else expect([200, 401]).toContain(works);
    },
  },
  {
    name: 'delete-key',
    baseline: 200,
    org: 1,
    setup: async () => (await run.admin.create({ org_id: 1, name: 'to delete' })).body.data,
    run: (created) => run.admin.remove(created.id, 1),
    check: async (created, { reply }) => {
      const listed = ((await run.admin.list(1)).body.data as { id: number }[]).some((k) => k.id === created.id);
      if (reply.status === 200) expect(listed).toBe(false);
    },
  },
  {
    name: 'audit-log',
    baseline: 200,
    org: 1,
    setup: async () => undefined,
    run: () => run.admin.audit({ org_id: 1, limit: 5 }),
    check: async () => undefined,
  },
];

describe('fault injection at the store boundary', () => {
  test.each(operations.map((op) => [op.name, op] as const))('%s: every call, every fault kind', (_name, op) => run.matrix(op), 120_000);
});
