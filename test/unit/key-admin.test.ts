/**
 * KeyAdmin's audit rules where the database misbehaves (hard to provoke over HTTP): a write that
 * fails after authorization leaves one audit record with the real outcome; an audit write that
 * fails after the change took effect does not fail the call, and is reported.
 */
import { describe, expect, test } from '@jest/globals';
import { AdminAccess } from '../../shared/catalog/admin-access.js';
import { newKeyRecord } from '../../shared/keys/api-keys.js';
import { NotFound } from '../../shared/platform/errors.js';
import { IdAllocator, type SequenceStore } from '../../shared/platform/ids.js';
import { KeyAdmin } from '../../shared/keys/key-admin.js';
import type { ApiKeyRecord } from '../../shared/keys/model.js';
import type { AuditRecord } from '../../shared/audit/model.js';
import type { CallContext } from '../../shared/platform/call.js';
import type { Org, Role } from '../../shared/catalog/model.js';
import type { AuditStore } from '../../shared/audit/ports.js';
import type { KeyAddress, KeyAdminStore, KeyChanges } from '../../shared/keys/ports.js';

const NOW = Date.parse('2026-11-23T10:00:00.000Z');
const ORG: Org = { org_id: 1, slug: 'acme', name: 'Acme', tier: 'business' };
const call: CallContext = { requestId: 'req-1', sourceIp: '203.0.113.9', userAgent: 'test' };
const admin = { subject: 'acme-admin' };

class FakeKeys implements KeyAdminStore {
  readonly byId = new Map<number, ApiKeyRecord>();
  failUpdate: Error | undefined;
  async listByOrg(orgId: number) {
    return [...this.byId.values()].filter((k) => k.org_id === orgId);
  }
  async findInOrg(orgId: number, id: number) {
    const key = this.byId.get(id);
    return key?.org_id === orgId ? key : undefined;
  }
  async locate(orgId: number, id: number) {
    return this.findInOrg(orgId, id);
  }
  async peek(orgId: number, id: number) {
    return this.findInOrg(orgId, id);
  }
  async update(key: KeyAddress, changes: KeyChanges, at: string) {
    if (this.failUpdate) throw this.failUpdate;
    const before = this.byId.get(key.id)!;
    const next = { ...before, ...changes, updated_at: at } as ApiKeyRecord;
    this.byId.set(key.id, next);
    return { before, after: next };
  }
  async remove(key: KeyAddress) {
    this.byId.delete(key.id);
  }
  async unretire(key: KeyAddress, restore: Pick<ApiKeyRecord, 'is_active' | 'expires_at'>, rotatedTo: number, at: string) {
    const current = this.byId.get(key.id);
    if (current?.rotated_to !== rotatedTo || current.updated_at !== at) return false;
    this.byId.set(key.id, { ...current, ...restore, rotated_to: null });
    return true;
  }
  async createInOrg(key: ApiKeyRecord) {
    this.byId.set(key.id, key);
  }
}

class FakeAudit implements AuditStore {
  /** Items by their key (org, time, request): a put with the same key overwrites, as in DynamoDB. */
  readonly items = new Map<string, AuditRecord>();
  failing = false;
  async put(placed: AuditRecord) {
    if (this.failing) throw new Error('audit table unavailable');
    const { shard: _shard, ...record } = placed;
    this.items.set(`${record.org_id}|${record.at}#${record.request_id}`, record);
    return { ...record, shard: 0 };
  }
  async remove(record: AuditRecord) {
    this.items.delete(`${record.org_id}|${record.at}#${record.request_id}`);
  }
}

function setup() {
  const keys = new FakeKeys();
  const audit = new FakeAudit();
  const reported: string[] = [];
  let counter = 0;
  const counters: SequenceStore = { reserve: async (_s, size) => (counter += size) };
  const catalog = {
    getOrg: async (id: number) => (id === 1 ? ORG : undefined),
    getRole: async (id: number, sub: string): Promise<Role | undefined> => (id === 1 && sub === 'acme-admin' ? 'admin' : undefined),
  };
  const keyAdmin = new KeyAdmin({
    access: new AdminAccess(catalog),
    keys,
    audit,
    keyIds: new IdAllocator(counters, { sequence: 'key_id', blockSize: 1 }),
    clock: { now: () => NOW },
    auditRetentionDays: 90,
    onBackgroundError: (_e, what) => reported.push(what),
  });
  const existing = newKeyRecord(`dpk_${'a'.repeat(40)}`, 7, ORG, { name: 'existing' }, NOW - 1000);
  keys.byId.set(7, existing);
  return { keys, audit, reported, keyAdmin };
}

describe('KeyAdmin audit when the database misbehaves', () => {
  test('an update whose conditional write fails (key deleted meanwhile): 404, and one audit record that says 404', async () => {
    const { keys, audit, keyAdmin } = setup();
    keys.failUpdate = new NotFound('API key 7 not found in organization 1');
    await expect(keyAdmin.update(admin, { id: 7, org_id: 1, is_active: false }, call)).rejects.toBeInstanceOf(NotFound);
    const records = [...audit.items.values()];
    expect(records).toHaveLength(1);
    expect(records[0]).toMatchObject({ action: 'update-key', status: 404, key_id: 7, actor: 'acme-admin', changes: ['is_active'] });
  });

  test('a failing audit write after the change took effect: the call succeeds and the failure is reported', async () => {
    const { keys, audit, reported, keyAdmin } = setup();
    audit.failing = true;
    const view = await keyAdmin.update(admin, { id: 7, org_id: 1, is_active: false }, call);
    expect(view.is_active).toBe(false);
    expect(keys.byId.get(7)!.is_active).toBe(false);
    expect(reported).toEqual(['audit record']);
  });

  test('a create records the new key’s id and prefix, with the admin as actor', async () => {
    const { audit, keyAdmin } = setup();
    const created = await keyAdmin.create(admin, { org_id: 1, name: 'new' }, call);
    expect([...audit.items.values()]).toEqual([
      expect.objectContaining({
        action: 'create-key',
        status: 200,
        key_id: created.id,
        key_prefix: created.key.slice(0, 8),
        actor: 'acme-admin',
      }),
    ]);
  });

  test('a refused call (not a member) writes no audit record', async () => {
    const { audit, keyAdmin } = setup();
    await expect(keyAdmin.list({ subject: 'stranger' }, 1, call)).rejects.toThrow('not a member');
    expect(audit.items.size).toBe(0);
  });
});
