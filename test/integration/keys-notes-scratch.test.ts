/** SCRATCH (issue 26's proof, reverted): a dummy key setting `notes` end to end over HTTP. */
import { expect, test } from '@jest/globals';
import { describeWithStack } from '../support/describe-with-stack.js';
import { keyAdminCalls } from '../support/key-admin.js';

describeWithStack('scratch: the notes setting', ({ stack, admin }) => {
  const { newKey } = keyAdminCalls({ stack, admin });

  test('create, update, list, null clears, bound, audit diff, rotation', async () => {
    expect((await newKey()).data.notes).toBeNull();
    const { id, data } = await newKey({ notes: 'first' });
    expect(data.notes).toBe('first');
    expect((await admin.create({ org_id: 1, name: 'too long', notes: 'x'.repeat(501) })).status).toBe(400);

    stack.clock.advance(1000);
    const updated = await admin.update({ id, org_id: 1, notes: 'second' });
    expect(updated.status).toBe(200);
    expect(updated.body.data.notes).toBe('second');
    expect((await admin.list(1)).body.data.find((k: any) => k.id === id).notes).toBe('second');

    const audit = await admin.audit({ org_id: 1, audit_action: 'update-key', outcome: 'success' });
    const record = audit.body.data.records.find((r: any) => r.key_id === id);
    expect(record.changes).toEqual(['notes']);
    expect(record.diff).toEqual({ notes: { before: 'first', after: 'second' } });

    const rotated = await admin.rotate({ id, org_id: 1, grace_period_minutes: 0 });
    expect(rotated.status).toBe(200);
    expect(rotated.body.data.notes).toBe('second');

    const cleared = await admin.update({ id: rotated.body.data.id, org_id: 1, notes: null });
    expect(cleared.body.data.notes).toBeNull();
  });
});
