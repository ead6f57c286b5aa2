/**
 * A rotation never lengthens a key's life: a rotated key can't be reactivated
 * nor have its expiry extended or removed (409), and a revoked key can't be rotated. And the audit
 * records of refused key operations keep the key id that was asked for (finding 9).
 */
import { describe, expect, test } from '@jest/globals';
import { AdminAccess } from '../../shared/catalog/admin-access.js';
import { IdAllocator } from '../../shared/platform/ids.js';
import { KeyAdmin } from '../../shared/keys/key-admin.js';
import { describeWithStack } from '../support/describe-with-stack.js';
import { auditOfRequest } from '../support/keys.js';

describeWithStack('retired keys', ({ stack, admin }) => {
  async function newKey(): Promise<{ id: number; key: string }> {
    const res = await admin.create({ org_id: 1, name: 'retiring key' });
    expect(res.status).toBe(200);
    stack.secrets.noteRawKey(res.body.data.key);
    return { id: res.body.data.id, key: res.body.data.key };
  }

  async function rotate(id: number, grace: number) {
    const res = await admin.rotate({ id, org_id: 1, grace_period_minutes: grace });
    if (res.status === 200) stack.secrets.noteRawKey(res.body.data.key);
    return res;
  }

  const createSession = (key: string) => stack.post('create-session', { game_id: 101 }, { 'x-api-key': key });
  const inAnHour = () => new Date(stack.clock.now() + 3_600_000).toISOString();

  describe('a rotated key stays retired', () => {
    test('the attack: rotate with grace 0, then reactivate with no expiry: 409, and the old key stays dead', async () => {
      const old = await newKey();
      const rotated = await rotate(old.id, 0);
      expect(rotated.status).toBe(200);
      const back = await admin.update({ id: old.id, org_id: 1, is_active: true, expires_at: null });
      expect(back.status).toBe(409);
      expect(back.body.error).toBe(
        `API key ${old.id} was rotated to key ${rotated.body.data.id}: it cannot be reactivated and its expiry cannot be extended`,
      );
      for (const body of [{ is_active: true }, { expires_at: null }, { expires_at: inAnHour() }]) {
        expect((await admin.update({ id: old.id, org_id: 1, ...body })).status).toBe(409);
      }
      expect((await createSession(old.key)).status).toBe(401);
      expect((await createSession(rotated.body.data.key)).status).toBe(200);
      const listed = (await admin.list(1)).body.data.find((k: { id: number }) => k.id === old.id);
      expect(listed).toMatchObject({ is_active: false, rotated_to: rotated.body.data.id });
    });

    test('during the grace period the expiry may shorten, never lengthen; other edits still work', async () => {
      const old = await newKey();
      const rotated = await rotate(old.id, 60);
      const graceEnds: string = rotated.body.data.previous.expires_at;
      const later = new Date(Date.parse(graceEnds) + 60_000).toISOString();
      expect((await admin.update({ id: old.id, org_id: 1, expires_at: later })).status).toBe(409);
      expect((await admin.update({ id: old.id, org_id: 1, expires_at: null })).status).toBe(409);
      const sooner = new Date(Date.parse(graceEnds) - 30 * 60_000).toISOString();
      const shortened = await admin.update({ id: old.id, org_id: 1, expires_at: sooner, name: 'winding down' });
      expect(shortened.status).toBe(200);
      expect(shortened.body.data).toMatchObject({ expires_at: sooner, name: 'winding down', is_active: true });
      // Still active in its grace period: saying so again changes nothing and is allowed.
      expect((await admin.update({ id: old.id, org_id: 1, is_active: true })).status).toBe(200);
      // Revoked early, it can't come back.
      expect((await admin.update({ id: old.id, org_id: 1, is_active: false })).status).toBe(200);
      expect((await admin.update({ id: old.id, org_id: 1, is_active: true })).status).toBe(409);
      expect((await createSession(old.key)).status).toBe(401);
    });

    test('a revoked key cannot be rotated: 409, no replacement made, the audit record names the key', async () => {
      const old = await newKey();
      expect((await admin.update({ id: old.id, org_id: 1, is_active: false })).status).toBe(200);
      const before = (await admin.list(1)).body.data.length;
      const res = await rotate(old.id, 0);
      expect(res.status).toBe(409);
      expect(res.body.error).toMatch(/revoked/);
      expect((await admin.list(1)).body.data.length).toBe(before);
      const [record] = await auditOfRequest(stack, 1, res.headers.get('x-request-id'));
      expect(record).toMatchObject({ action: 'rotate-key', status: 409, key_id: old.id });
    });

    test('an unrotated key may still be reactivated and given any expiry', async () => {
      const k = await newKey();
      expect((await admin.update({ id: k.id, org_id: 1, is_active: false })).status).toBe(200);
      const back = await admin.update({ id: k.id, org_id: 1, is_active: true, expires_at: null });
      expect(back.status).toBe(200);
      expect((await createSession(k.key)).status).toBe(200);
    });
  });

  describe('audit records of refused key operations keep the key id asked for', () => {
    test('delete of an unknown id (404) and a second rotation (409)', async () => {
      const gone = await admin.remove(987_654, 1);
      expect(gone.status).toBe(404);
      expect((await auditOfRequest(stack, 1, gone.headers.get('x-request-id')))[0]).toMatchObject({
        action: 'delete-key',
        status: 404,
        key_id: 987_654,
        key_prefix: null,
      });
      const k = await newKey();
      expect((await rotate(k.id, 5)).status).toBe(200);
      const again = await rotate(k.id, 5);
      expect(again.status).toBe(409);
      expect((await auditOfRequest(stack, 1, again.headers.get('x-request-id')))[0]).toMatchObject({
        action: 'rotate-key',
        status: 409,
        key_id: k.id,
        key_prefix: k.key.slice(0, 8),
      });
      const patched = await admin.update({ id: 987_655, org_id: 1, name: 'nobody' });
      expect(patched.status).toBe(404);
      expect((await auditOfRequest(stack, 1, patched.headers.get('x-request-id')))[0]).toMatchObject({ status: 404, key_id: 987_655 });
    });
  });

  describe('races: the key store’s conditions decide, not the earlier read', () => {
    /** KeyAdmin over the real stores, with `meanwhile` run right after the key was read (between the read and the write). */
    function adminWith(meanwhile: () => Promise<unknown>): KeyAdmin {
      const { catalog, keys, sequences, audit } = stack.services.stores;
      let pending: (() => Promise<unknown>) | undefined = meanwhile;
      /** The store's read of the key (the whole key for a rotation, its location for an update), then `meanwhile`. */
      const thenMeanwhile =
        <T>(read: (orgId: number, id: number) => Promise<T>) =>
        async (orgId: number, id: number): Promise<T> => {
          const found = await read(orgId, id);
          const run = pending;
          pending = undefined;
          await run?.();
          return found;
        };
      const store = Object.assign(Object.create(keys) as typeof keys, {
        findInOrg: thenMeanwhile((orgId, id) => keys.findInOrg(orgId, id)),
        locate: thenMeanwhile((orgId, id) => keys.locate(orgId, id)),
      });
      return new KeyAdmin({
        access: new AdminAccess(catalog),
        keys: store,
        audit,
        keyIds: new IdAllocator(sequences, { sequence: 'key_id', blockSize: 1 }),
        clock: stack.clock,
        auditRetentionDays: 90,
      });
    }
    const call = { requestId: 'race', sourceIp: '127.0.0.1', userAgent: 'test' };
    const acme = { subject: 'acme-admin' };

    test('a key revoked between a rotation’s read and its write: 409, no replacement left behind', async () => {
      const k = await newKey();
      const before = (await admin.list(1)).body.data.length;
      const racing = adminWith(() => admin.update({ id: k.id, org_id: 1, is_active: false }));
      await expect(racing.rotate(acme, { id: k.id, org_id: 1, grace_period_minutes: 0 }, call)).rejects.toMatchObject({
        name: 'Conflict',
        message: expect.stringMatching(/revoked|rotated/),
      });
      expect((await admin.list(1)).body.data.length).toBe(before);
      expect((await admin.list(1)).body.data.find((x: { id: number }) => x.id === k.id)).toMatchObject({
        is_active: false,
        rotated_to: null,
      });
    });

    test('a key rotated between a reactivation’s read and its write: 409, it stays retired', async () => {
      const k = await newKey();
      const racing = adminWith(() => rotate(k.id, 0));
      await expect(racing.update(acme, { id: k.id, org_id: 1, is_active: true, expires_at: null }, call)).rejects.toMatchObject({
        name: 'Conflict',
        message: expect.stringMatching(/was rotated to key \d+/),
      });
      expect((await createSession(k.key)).status).toBe(401);
    });
  });
});
